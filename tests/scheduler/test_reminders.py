"""Reminders as a person meets them: a message at the note's `remind` time in their
zone, once (restart, second process), caught up after short downtime only, tried
again when the platform fails; Done and Snooze commit the change; repeating notes
repeat; `/reminders` lists them."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import frontmatter
import pytest

from app.commands.doctor_database import failed_sends
from app.runtime import Runtime
from app.scheduling import build_service, start_scheduler
from bot.events import Conversation, Deliver, NoRoute, Reply
from scheduler.reminders import Reminders
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import Clock, running_brain
from tests.scheduler.outbox import Outbox, add_ada

BERLIN = ZoneInfo("Europe/Berlin")
NINE = datetime(2026, 11, 24, 9, 0, tzinfo=BERLIN)  # Tuesday, 08:00 UTC


async def _ada(brain: Runtime) -> None:
    """Ada, whose vault is the configured one (she is the install's first person)."""
    ada = await add_ada(brain)
    assert (await brain.vaults.of_person(ada.id, ada.name)).id == 1


def _reminders_sent_to(brain: Runtime, deliver: Deliver) -> Reminders:
    """The reminder sender of a scheduler that delivers through `deliver`."""
    reminders = build_service(brain, deliver).reminders
    assert reminders is not None
    return reminders


def _reminders(outbox: Outbox) -> list[Reply]:
    """What the outbox got besides the digest (which the scheduler sends too)."""
    return [reply for _, _, reply in outbox.sent if reply.text.startswith("⏰")]


async def _note(brain: Runtime, title: str, **fields: Any) -> str:
    entry = await brain.store.create("admin", title, f"{title}.", fields)
    return entry.path


def _fields(brain: Runtime, path: str) -> dict[str, Any]:
    return dict(frontmatter.load(brain.settings.vault_dir / path).metadata)


async def test_a_wall_time_is_read_in_the_zone_the_note_records(
    tmp_path: Path, database_url: str
) -> None:
    # Written in Seoul ("remind: 2026-11-24T17:00:00", "timezone: Asia/Seoul"), read
    # by a person in Berlin: the same instant, 09:00 in Berlin, not 17:00 there.
    clock = Clock(NINE - timedelta(seconds=1))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        entry = await brain.store.create(
            "admin", "Call mom", "Call mom.", {"remind": NINE}, zone=ZoneInfo("Asia/Seoul")
        )
        outbox = Outbox(clock)
        reminders = _reminders_sent_to(brain, outbox)
        await reminders.run_due(clock())
        assert outbox.sent == []
        clock.advance(seconds=1)
        await reminders.run_due(clock())
        fields = _fields(brain, entry.path)
    assert str(fields["remind"]) == "2026-11-24 17:00:00"
    assert fields["timezone"] == "Asia/Seoul"
    ((at, _, reply),) = outbox.sent
    assert at == NINE and reply.text.startswith("⏰ Call mom")


async def test_a_reminder_comes_once_at_its_local_time_with_done_and_snooze(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE - timedelta(seconds=1))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        path = await _note(brain, "Call mom", remind=NINE)
        outbox = Outbox(clock)
        reminders = _reminders_sent_to(brain, outbox)
        await reminders.run_due(clock())
        assert outbox.sent == []
        clock.advance(seconds=1)
        await reminders.run_due(clock())
        clock.advance(seconds=10)
        await reminders.run_due(clock())
        (log,) = await reminders.ledger.entries("reminder")
    ((at, conversation, reply),) = outbox.sent
    assert at == NINE and conversation == Conversation("test", "chat-1")
    assert reply.text.startswith("⏰ Call mom") and path in reply.text
    assert [b.label for b in reply.buttons] == ["Done", "Snooze 1 h", "Tomorrow", "Next week"]
    assert (log.status, log.path, log.due_at) == ("sent", path, NINE)


async def test_a_restart_or_a_second_process_sends_it_no_second_time(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE + timedelta(minutes=1))
    outboxes = [Outbox(clock), Outbox(clock)]
    async with (
        running_brain(tmp_path, database_url, clock=clock) as one,
        running_brain(tmp_path, database_url, clock=clock) as two,
    ):
        await _ada(one)
        await _note(one, "Call mom", remind=NINE)
        services = [
            await start_scheduler(one, outboxes[0], poll_seconds=60),
            await start_scheduler(two, outboxes[1], poll_seconds=60),
        ]
        for service in services:  # both decide at once: the log lets one through
            assert service.reminders is not None
            await service.reminders.run_due(clock())
        for service in services:
            await service.stop()
    assert len(_reminders(outboxes[0]) + _reminders(outboxes[1])) == 1
    again = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        service = await start_scheduler(brain, again, poll_seconds=60)
        await service.stop()
    assert _reminders(again) == []


@pytest.mark.parametrize(("late_hours", "sent"), [(5, True), (7, False)])
async def test_after_downtime_only_a_reminder_within_the_grace_period_is_sent(
    tmp_path: Path,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
    late_hours: int,
    sent: bool,
) -> None:
    clock = Clock(NINE + timedelta(hours=late_hours))
    outbox = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        await _note(brain, "Call mom", remind=NINE)
        with caplog.at_level(logging.WARNING, logger="scheduler.reminders"):
            service = await start_scheduler(brain, outbox, poll_seconds=60)
            await service.stop()
        assert service.reminders is not None
        (entry,) = await service.reminders.ledger.entries("reminder")
    if sent:
        (reply,) = _reminders(outbox)
        assert "I could not send it then" in reply.text and entry.status == "sent"
    else:
        assert _reminders(outbox) == [] and entry.status == "skipped"
        assert "missed by 7:00:00" in caplog.text


async def test_done_closes_the_note_once_and_only_for_its_person(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        path = await _note(brain, "Call mom", remind=NINE)
        outbox = Outbox(clock)
        reminders = _reminders_sent_to(brain, outbox)
        await reminders.run_due(clock())
        ((_, _, reply),) = outbox.sent
        commits = len(git_log(brain.settings.vault_dir))

        (refusal,) = await brain.engine.handle(press(reply, "Done", user="U2"))
        assert "Only the person this reminder is for" in refusal.text
        assert _fields(brain, path).get("status") is None

        (done,) = await brain.engine.handle(press(reply, "Done"))
        assert done.replace and done.text == "⏰ Call mom\n✓ done"
        assert _fields(brain, path)["status"] == "done"
        assert await brain.engine.handle(press(reply, "Snooze 1 h")) == []
        assert len(git_log(brain.settings.vault_dir)) == commits + 1
        # A closed note reminds nobody, and /reminders no longer lists it.
        clock.advance(days=1)
        await reminders.run_due(clock())
        assert len(outbox.sent) == 1
        (listing,) = await brain.engine.handle(message("/reminders"))
        assert "Call mom" not in listing.text


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Snooze 1 h", datetime(2026, 11, 24, 10, 3, tzinfo=BERLIN)),
        ("Tomorrow", datetime(2026, 11, 25, 9, 0, tzinfo=BERLIN)),
        ("Next week", datetime(2026, 12, 1, 9, 0, tzinfo=BERLIN)),
    ],
)
async def test_snooze_moves_the_reminder_and_it_comes_again_then(
    tmp_path: Path, database_url: str, label: str, expected: datetime
) -> None:
    clock = Clock(NINE + timedelta(minutes=3))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        path = await _note(brain, "Call mom", remind=NINE)
        outbox = Outbox(clock)
        reminders = _reminders_sent_to(brain, outbox)
        await reminders.run_due(clock())
        ((_, _, reply),) = outbox.sent
        (snoozed,) = await brain.engine.handle(press(reply, label))
        assert "→ snoozed to" in snoozed.text
        assert _fields(brain, path)["remind"] == expected
        clock.now = expected - timedelta(seconds=1)
        await reminders.run_due(clock())
        assert len(outbox.sent) == 1
        clock.now = expected
        await reminders.run_due(clock())
    assert [at for at, _, _ in outbox.sent] == [NINE + timedelta(minutes=3), expected]


async def test_a_repeating_reminder_moves_on_by_itself_and_comes_every_week(
    tmp_path: Path, database_url: str
) -> None:
    monday = datetime(2026, 11, 23, 9, 0, tzinfo=BERLIN)
    clock = Clock(monday)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        path = await _note(brain, "Water the plants", remind=monday, repeat="every monday")
        outbox = Outbox(clock)
        reminders = _reminders_sent_to(brain, outbox)
        for _ in range(3):
            await reminders.run_due(clock())
            clock.advance(days=7)
        (done,) = await brain.engine.handle(press(outbox.sent[-1][2], "Done"))
        fields = _fields(brain, path)
    assert [at for at, _, _ in outbox.sent] == [monday + timedelta(days=7 * i) for i in range(3)]
    assert fields["remind"] == monday + timedelta(days=21)  # the next one, written ahead
    assert str(fields["last_done"]) == "2026-12-14" and fields.get("status") is None
    assert "repeats every monday" in done.text


async def test_a_failed_send_is_tried_again_then_reported(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(NINE)
    attempts: list[datetime] = []
    delivered: list[Reply] = []
    failing_until = NINE + timedelta(seconds=80)

    async def flaky(conversation: Conversation, reply: Reply) -> None:
        attempts.append(clock())
        if clock() < failing_until:
            raise RuntimeError("Slack answered 503")
        delivered.append(reply)

    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        await _note(brain, "Call mom", remind=NINE)
        reminders = _reminders_sent_to(brain, flaky)
        while clock() < NINE + timedelta(minutes=5):
            await reminders.run_due(clock())
            clock.advance(seconds=10)
        (entry,) = await reminders.ledger.entries("reminder")
        # One that never gets through is reported once its grace period is over.
        await _note(brain, "Renew passport", remind=NINE + timedelta(hours=1))

        async def down(conversation: Conversation, reply: Reply) -> None:
            raise NoRoute("test")

        reminders.deliver = down
        with caplog.at_level(logging.ERROR, logger="scheduler.reminders"):
            while clock() < NINE + timedelta(hours=8):
                await reminders.run_due(clock())
                clock.advance(minutes=1)
        last = [
            e for e in await reminders.ledger.entries("reminder") if e.title == "Renew passport"
        ]
    # 09:00:00 fails, retried 30 s later (fails), then 1 min later: through.
    assert attempts == [NINE, NINE + timedelta(seconds=30), NINE + timedelta(seconds=90)]
    assert len(delivered) == 1 and (entry.status, entry.attempts) == ("sent", 3)
    assert last[0].status == "failed" and "cannot reach test" in last[0].detail
    assert "failed for good" in caplog.text


async def test_the_reminders_command_lists_what_is_coming(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NINE - timedelta(days=1))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await _ada(brain)
        await _note(brain, "Call mom", remind=NINE)
        await _note(
            brain, "Water the plants", remind=NINE + timedelta(days=6), repeat="every monday"
        )
        await _note(brain, "Old errand", remind=NINE - timedelta(days=3))
        (listing,) = await brain.engine.handle(message("/reminders"))
    lines = listing.text.splitlines()
    assert lines[0] == "Coming up:"
    assert "Call mom" in lines[1] and "tomorrow" in lines[1].lower()
    assert "Water the plants" in lines[2] and "repeats every monday" in lines[2]
    assert lines[3] == "Earlier, not done yet:" and "Old errand" in lines[4]


async def test_a_failed_digest_is_tried_again_within_its_grace(
    tmp_path: Path, database_url: str
) -> None:
    seven_utc = datetime(2026, 11, 20, 7, 0, tzinfo=UTC)
    clock = Clock(seven_utc)
    sent: list[Reply] = []

    async def flaky(conversation: Conversation, reply: Reply) -> None:
        if clock() < seven_utc + timedelta(seconds=45):
            raise RuntimeError("Telegram answered 502")
        sent.append(reply)

    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        service = build_service(brain, flaky)
        await service.run_due(clock())
        (first,) = [
            e
            for e in await service.ledger.entries("digest", user_id=ada.id)
            if e.status != "skipped"
        ]
        for _ in range(12):
            clock.advance(seconds=10)
            await service.retry_due(clock())
        (after,) = [
            e
            for e in await service.ledger.entries("digest", user_id=ada.id)
            if e.status != "skipped"
        ]
    assert first.status == "retrying" and "502" in first.detail
    assert len(sent) == 1 and sent[0].text.startswith("Daily digest")
    assert (after.status, after.attempts) == ("sent", 3)


async def test_a_digest_that_never_gets_through_is_reported(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Doctor reports what failed in the last 7 days of the real clock (it runs as a
    # command, with no clock of ours), so the digest is due yesterday; in UTC, where no
    # summer time moves 07:00 and the retries' count with it.
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    seven_utc = datetime.combine(yesterday, time(7, 0), UTC)
    clock = Clock(seven_utc)

    async def down(conversation: Conversation, reply: Reply) -> None:
        raise NoRoute("test")

    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain, timezone="UTC", digest_time="07:00")
        service = build_service(brain, down)
        with caplog.at_level(logging.ERROR, logger="scheduler.delivery"):
            await service.run_due(clock())
            while clock() < seven_utc + timedelta(hours=2, minutes=30):
                clock.advance(minutes=1)
                await service.retry_due(clock())
        (entry,) = [
            e
            for e in await service.ledger.entries("digest", user_id=ada.id)
            if e.status != "skipped"
        ]
        (warning,) = await failed_sends(brain.database)
    # 30 s, 1, 2, 4, 8 and then every 15 minutes until the 2 h grace period ends.
    assert entry.status == "failed" and entry.attempts == 12
    assert "failed for good after 12 attempt(s)" in caplog.text
    assert warning.level == "warning" and "cannot reach test" in warning.detail
