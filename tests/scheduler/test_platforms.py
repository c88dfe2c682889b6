"""A full digest through the real adapters and the fake Slack and Telegram servers:
one message inside each platform's limits, and a Done press that edits it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from adapters.slack.app import SlackAdapter
from adapters.telegram.app import TelegramAdapter
from app.platforms import deliver_via
from app.runtime import Runtime
from app.scheduling import build_service
from tests.fakes.brain import Clock, running_brain
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, MAX_BLOCKS, FakeSlack, block_errors
from tests.fakes.slack_payloads import DM_CHANNEL, block_actions
from tests.fakes.telegram_api import MAX_TEXT, FakeTelegram, utf16_len, visible_text
from tests.fakes.telegram_updates import Updates
from tests.scheduler.notes import add_notes, note_text, on
from tests.scheduler.outbox import add_ada

SEVEN_UTC = datetime(2026, 11, 20, 7, 0, tzinfo=UTC)
DAY = date(2026, 11, 20)
LONG = "a rather long line that goes on and on " * 10


def _busy_vault() -> dict[str, str]:
    """Far more than a digest can show, with long titles: the limits must hold."""
    notes = {
        f"projects/p{i:02d}.md": note_text(f"Project {i} {LONG}", status="active", next_action=LONG)
        for i in range(40)
    }
    notes |= {
        f"admin/a{i:02d}.md": note_text(f"Bill {i} {LONG}", due=str(DAY - timedelta(days=i)))
        for i in range(40)
    }
    notes |= {f"people/p{i:02d}.md": note_text(f"Person {i}", follow_ups=[LONG]) for i in range(40)}
    notes |= {
        f"ideas/i{i:02d}.md": note_text(f"Idea {i} {LONG}", created=on(DAY - timedelta(days=1)))
        for i in range(40)
    }
    notes |= {f"inbox/n{i:02d}.md": note_text(f"Inbox {i}") for i in range(40)}
    return notes


@pytest.fixture
async def brain(tmp_path: Path, database_url: str) -> AsyncIterator[Runtime]:
    async with running_brain(tmp_path, database_url, clock=Clock(SEVEN_UTC)) as runtime:
        await add_notes(runtime.store, tmp_path / "import", _busy_vault())
        yield runtime


async def test_a_digest_through_telegram_fits_one_message_and_done_edits_it(
    brain: Runtime,
) -> None:
    async with FakeTelegram() as fake:
        adapter = TelegramAdapter(fake.token, api_url=fake.root, poll_timeout=5)
        await adapter.start(brain.engine.handle)
        try:
            await add_ada(brain, platform="telegram", user_id="42", chat_id="42")
            service = build_service(brain, deliver_via([adapter]))
            ((_, outcome),) = await service.run_due(brain.engine.clock())
            assert outcome.status == "sent"
            (sent,) = fake.calls("sendMessage")
            assert utf16_len(visible_text(sent["text"])) <= MAX_TEXT
            assert visible_text(sent["text"]).startswith("Daily digest for Friday 2026-11-20")
            rows = sent["reply_markup"]["inline_keyboard"]
            assert [[b["text"] for b in row] for row in rows[:2]] == [
                ["Done 1", "Snooze 1", "Open 1"],
                ["Done 2", "Snooze 2", "Open 2"],
            ]
            assert len(rows) == 10
            done = rows[0][0]["callback_data"]
            assert len(done.encode()) <= 64

            message_id = next(iter(fake.messages.values())).message_id
            fake.queue_update(Updates().press(done, message_id=message_id))
            (edit,) = await fake.wait_for("editMessageText")
        finally:
            await adapter.stop()
    assert "1. ✓ Project 0" in visible_text(edit["text"])
    assert len(edit["reply_markup"]["inline_keyboard"]) == 9
    status = frontmatter.load(brain.settings.vault_dir / "projects/p00.md")["status"]
    assert status == "done"


def _button(blocks: list[dict[str, Any]], label: str) -> dict[str, Any]:
    for block in blocks:
        for element in block.get("elements", []):
            if element.get("type") == "button" and element["text"]["text"] == label:
                return element
    raise AssertionError(f"no button {label!r}")


async def test_a_digest_through_slack_stays_inside_the_block_limits_and_done_edits_it(
    brain: Runtime,
) -> None:
    fake = FakeSlack()
    await fake.start()
    adapter = SlackAdapter(BOT_TOKEN, app_token=APP_TOKEN, api_url=fake.api_url)
    await adapter.start(brain.engine.handle)
    try:
        await add_ada(brain, platform="slack", user_id="U0ALICE", chat_id=DM_CHANNEL)
        service = build_service(brain, deliver_via([adapter]))
        ((_, outcome),) = await service.run_due(brain.engine.clock())
        assert outcome.status == "sent"
        (post,) = fake.ok_calls("chat.postMessage")
        blocks = post.args["blocks"]
        assert len(blocks) <= MAX_BLOCKS and block_errors(blocks) == []
        assert blocks[0]["text"]["text"].startswith("Daily digest for Friday 2026-11-20")
        done = _button(blocks, "Done 1")

        (ts,) = [posted.ts for posted in fake.messages.values()]
        payload = block_actions(action_id=done["action_id"], value=done["value"], message_ts=ts)
        await fake.push("interactive", payload)
        (update,) = await fake.wait_for("chat.update")
    finally:
        await adapter.stop()
        await fake.close()
    text = "\n".join(b["text"]["text"] for b in update.args["blocks"] if b["type"] == "section")
    assert "1. ✓ Project 0" in text
    status = frontmatter.load(brain.settings.vault_dir / "projects/p00.md")["status"]
    assert status == "done"
