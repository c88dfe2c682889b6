"""End to end on Telegram: a digest with older notes brought back, sent through the
real adapter, its Less like this, Done and Undo pressed in the fake Bot API (each
button's callback_data within Telegram's 64 bytes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter

from app.scheduling import build_service
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.digest.test_resurface import MORNING, VECTORS, _vault
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, say
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates
from tests.scheduler.notes import add_notes
from tests.scheduler.outbox import add_ada


def _buttons(sent: dict[str, Any]) -> dict[str, str]:
    return {
        b["text"]: b["callback_data"]
        for row in sent["reply_markup"]["inline_keyboard"]
        for b in row
    }


async def test_less_like_this_done_and_undo_work_from_telegram(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> None:
    openai_fake.responder = lambda body: say("A quiet day.")
    updates = Updates()
    async with running_brain(
        tmp_path, database_url, openai_fake, clock=Clock(MORNING), **VECTORS
    ) as brain:
        adapter = make_adapter(fake)
        await adapter.start(brain.engine.handle)
        try:
            await add_notes(brain.store, tmp_path / "import", _vault())
            ada = await add_ada(brain, platform="telegram", user_id="42", chat_id="42")
            service = build_service(brain, adapter.send)
            digest = await service.delivery.compose(ada, MORNING.date(), "daily")
            sent, _ = await service.delivery.send_now(ada, digest)
            assert sent.status == "sent"
            (card,) = await fake.wait_for("sendMessage", within=15)
            message_id = max(m.message_id for m in fake.messages.values())
            buttons = _buttons(card)
            assert list(buttons) == [
                *("Open 1", "Done 1", "Less like this 1"),
                *("Open 2", "Done 2", "Less like this 2"),
            ]
            rows = card["reply_markup"]["inline_keyboard"]
            assert [len(row) for row in rows] == [3, 3]  # one row per note
            assert all(len(data.encode()) <= 64 for data in buttons.values())

            fake.queue_update(updates.press(buttons["Less like this 1"], message_id=message_id))
            (lowered,) = await fake.wait_for("editMessageText", within=15)
            assert "less like this: shown less often" in visible_text(lowered["text"])

            fake.queue_update(updates.press(buttons["Done 2"], message_id=message_id))
            await fake.wait_for("editMessageText", 2, within=15)
            (_, told) = await fake.wait_for("sendMessage", 2, within=15)
            assert visible_text(told["text"]).startswith("Marked “Greenhouse ")
            done = [
                p
                for p in ("ideas/greenhouse.md", "ideas/heater.md")
                if frontmatter.load(brain.settings.vault_dir / p).get("status") == "done"
            ]
            assert len(done) == 1

            told_id = max(m.message_id for m in fake.messages.values())
            fake.queue_update(updates.press(_buttons(told)["Undo"], message_id=told_id))
            (*_, undone) = await fake.wait_for("editMessageText", 3, within=15)
            assert visible_text(undone["text"]).startswith("Undone: Marked")
            note = frontmatter.load(brain.settings.vault_dir / done[0])
            assert "status" not in note.metadata
        finally:
            await adapter.stop()
