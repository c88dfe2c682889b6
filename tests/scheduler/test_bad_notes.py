"""One person's bad note stops nobody else's reminder: a repeat rule or a `remind`
outside what a calendar can hold, written by hand, is read as invalid, left alone,
recorded for `brainbot doctor` and counted; the same values sent by a model or an MCP
client are refused with nothing written; the scheduler's leader keeps leading."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.mcp_wiring import mcp_calls
from app.runtime import Runtime
from app.scheduling import build_service, start_scheduler
from bot.events import Conversation
from bot.metrics import REGISTRY
from storage.db.skipped import SkippedItems
from tests.bot.helpers import git_log, message, notes
from tests.bot.mcp.support import text_of
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, call, say
from tests.scheduler.outbox import Outbox, add_ada

BERLIN = ZoneInfo("Europe/Berlin")
NINE = datetime(2026, 11, 24, 9, 0, tzinfo=BERLIN)
OVERFLOW_REPEAT = "FREQ=MONTHLY;INTERVAL=999999999999999999999"
YEAR_ONE = "0001-01-01T00:00:00+14:00"
PAY_RENT = (
    f"---\ntitle: Pay rent\nremind: {(NINE - timedelta(days=31)).isoformat()}\n"
    f"repeat: {OVERFLOW_REPEAT}\n---\nA note written by hand.\n"
)
YEAR_ONE_NOTE = f"---\ntitle: Year one\nremind: {YEAR_ONE}\n---\nThe calendar's first day.\n"


def _by_hand(brain: Runtime, path: str, text: str) -> None:
    """A note written into Ada's vault with an editor, not through brainbot."""
    full = brain.settings.vault_dir / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text, encoding="utf-8")


def _errors(where: str) -> float:
    return REGISTRY.get_sample_value("brainbot_errors_total", {"where": where}) or 0.0


def _capture(**fields: str) -> dict[str, Any]:
    return {
        "category": "admin",
        "title": "Pay rent",
        "body": "Pay the rent",
        "confidence": 0.9,
        "tags": [],
        "fields": [{"name": k, "value": v} for k, v in fields.items()],
    }


async def test_bad_notes_of_one_person_stop_no_one_else_s_reminder(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(NINE + timedelta(minutes=2))
    outbox = Outbox(clock)
    counted = _errors("reminders")
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        bob = await add_ada(brain, user_id="U2", chat_id="chat-2")
        _by_hand(brain, "admin/pay-rent.md", PAY_RENT)
        _by_hand(brain, "admin/year-one.md", YEAR_ONE_NOTE)
        await brain.store.sync()
        bob_store = await brain.vaults.store(await brain.vaults.of_person(bob.id, "Bob"))
        await bob_store.create(
            "admin", "Call mom", "Call mom.", {"remind": NINE + timedelta(minutes=1)}
        )
        with caplog.at_level(logging.INFO):
            service = await start_scheduler(brain, outbox, poll_seconds=0.05)
            try:
                async with asyncio.timeout(20):
                    # The scheduler polls on its own; the test only watches.
                    while caplog.text.count("skipped admin/") < 2 or not _reminders(outbox):  # noqa: ASYNC110
                        await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)  # ten more polls, where the old leader stepped down
                leading = caplog.text
                jobs = {job.id for job in service.scheduler.get_jobs()}
            finally:
                await service.stop()
        skipped = await SkippedItems(brain.database.engine).this_week(clock())
        found = await brain.store.search("calendar's first day")
        vault = brain.settings.vault_dir
        texts = [
            (vault / p).read_text(encoding="utf-8")
            for p in ("admin/pay-rent.md", "admin/year-one.md")
        ]
    # Bob's reminder came, in his chat, in the same polls that skipped Ada's notes.
    ((conversation, text),) = _reminders(outbox)
    assert conversation == Conversation("test", "chat-2") and "Call mom" in text
    # Ada's notes were left alone, and said so: log, counter, doctor's list.
    assert texts == [PAY_RENT, YEAR_ONE_NOTE]
    by_path = {(s.where, s.vault_id, s.path): s.reason for s in skipped}
    assert set(by_path) == {
        ("reminders", 1, "admin/pay-rent.md"),
        ("reminders", 1, "admin/year-one.md"),
    }
    assert "further apart than 100 years" in by_path["reminders", 1, "admin/pay-rent.md"]
    assert "outside the dates kept" in by_path["reminders", 1, "admin/year-one.md"]
    assert "skipped admin/year-one.md (reminders, vault 1)" in leading
    assert _errors("reminders") == counted + 2  # once each, not at every poll
    # The bad note is still found by search: only its reminder is skipped.
    assert [hit.path for hit in found.hits] == ["admin/year-one.md"]
    # The leader led all along, with every person's digest job.
    assert leading.count("now runs the digest scheduler") == 1
    assert "no longer runs the digest scheduler" not in leading
    assert {f"digest-{ada.id}", f"digest-{bob.id}"} <= jobs


def _reminders(outbox: Outbox) -> list[tuple[Conversation, str]]:
    return [(c, r.text) for _, c, r in outbox.sent if r.text.startswith("⏰")]


async def test_a_hand_fixed_note_is_cleared_and_one_still_bad_is_recorded_once_an_hour(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        await brain.vaults.of_person(ada.id, ada.name)  # vault 1 is hers from now on
        _by_hand(brain, "admin/pay-rent.md", PAY_RENT)
        _by_hand(brain, "admin/year-one.md", YEAR_ONE_NOTE)
        await brain.store.sync()
        reminders = build_service(brain, Outbox(clock)).reminders
        assert reminders is not None
        for _ in range(3):
            await reminders.run_due(clock())
        first = {s.path: s.times for s in await reminders.skipped.kept("reminders")}
        (listing,) = await brain.engine.handle(message("/reminders"))
        clock.advance(hours=1)
        _by_hand(brain, "admin/year-one.md", YEAR_ONE_NOTE.replace(YEAR_ONE, "2026-12-24T09:00"))
        await brain.store.sync()
        await reminders.run_due(clock())
        later = {s.path: s.times for s in await reminders.skipped.kept("reminders")}
        (brain.settings.vault_dir / "admin/pay-rent.md").unlink()
        await brain.store.sync()
        await reminders.run_due(clock())
        gone = await reminders.skipped.kept("reminders")
    assert first == {"admin/pay-rent.md": 1, "admin/year-one.md": 1}
    # `/reminders` says which one cannot be read, and still lists the rest.
    assert "Not sent, the time cannot be read:\n• Year one (admin/year-one.md)" in listing.text
    assert "Pay rent" in listing.text.split("Not sent")[0]
    assert later == {"admin/pay-rent.md": 2}  # fixed by hand: off doctor's list
    assert gone == []  # deleted: nothing left to report


async def test_mcp_capture_with_a_date_or_repeat_out_of_range_is_refused_and_writes_nothing(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        calls = mcp_calls(brain, Outbox(clock))
        vault = brain.settings.vault_dir
        commits = git_log(vault)
        refused = [
            await calls.call(ada.id, "capture", _capture(remind="2026-12-01 09:00", repeat=rule))
            for rule in (OVERFLOW_REPEAT, "FREQ=YEARLY;INTERVAL=100000")
        ]
        refused.append(await calls.call(ada.id, "capture", _capture(remind=YEAR_ONE)))
        refused.append(await calls.call(ada.id, "capture", _capture(due="0001-01-01")))
        written = (notes(vault), git_log(vault))
    assert all(result.isError for result in refused)
    texts = [text_of(result) for result in refused]
    assert "further apart than 100 years" in texts[0] and "Nothing was saved" in texts[0]
    assert "further apart than 100 years" in texts[1]
    assert "outside the dates kept (1970-01-01 to 9999-12-31)" in texts[2]
    assert "outside the dates kept" in texts[3]
    assert written == ([], commits)


async def test_a_model_s_repeat_out_of_range_is_refused_and_it_is_told_why(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("capture", **_capture(remind="2026-12-01 09:00", repeat=OVERFLOW_REPEAT)),
        say("That interval is too long; how often should I remind you?"),
    ]
    async with running_brain(tmp_path, database_url, openai_fake, clock=Clock(NINE)) as brain:
        await add_ada(brain)
        vault = brain.settings.vault_dir
        replies = await brain.engine.handle(message("remind me to pay rent every so often"))
        written = {path: (vault / path).read_text(encoding="utf-8") for path in notes(vault)}
    tool_answer = openai_fake.chat_requests()[-1]["messages"][-1]
    assert tool_answer["role"] == "tool"
    assert "further apart than 100 years" in json.loads(tool_answer["content"])["error"]
    assert "how often" in replies[0].text
    # The capture wrote nothing; the engine keeps the person's words in the inbox (a
    # thought is never lost), without the refused rule.
    ((path, text),) = written.items()
    assert path.startswith("inbox/") and "INTERVAL" not in text and "repeat" not in text
