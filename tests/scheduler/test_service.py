"""When digests go out, driven by a clock the test sets: once at the right instant,
never twice (restart, second process), caught up after short downtime only,
once on daylight-saving days."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from app.scheduling import build_service, start_scheduler
from bot.events import Conversation
from scheduler.service import job_id
from tests.bot.helpers import git_log
from tests.fakes.brain import Clock, running_brain
from tests.scheduler.outbox import Outbox, add_ada

SEVEN_UTC = datetime(2026, 11, 20, 7, 0, tzinfo=UTC)  # 08:00 in Berlin (CET)


async def test_a_digest_at_eight_in_berlin_fires_once_at_seven_utc(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(SEVEN_UTC - timedelta(seconds=1))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        outbox = Outbox(clock)
        service = build_service(brain, outbox)
        await service.run_due(clock())
        assert outbox.sent == []
        clock.advance(seconds=1)
        await service.run_due(clock())
        clock.advance(minutes=1)
        await service.run_due(clock())
        log = await service.ledger.entries("digest", user_id=ada.id)
        vault = brain.settings.vault_dir
    ((at, conversation, reply),) = outbox.sent
    assert at == SEVEN_UTC and conversation == Conversation("test", "chat-1")
    assert reply.text.startswith("Daily digest for Friday 2026-11-20")
    # The day before was never sent (it was long past when the scheduler first ran).
    assert [(e.local_date, e.status) for e in log] == [
        (date(2026, 11, 19), "skipped"),
        (date(2026, 11, 20), "sent"),
    ]
    assert (vault / "digests/2026-11-20.md").read_text().startswith("---\ntitle: Daily digest")
    assert "digest digests/2026-11-20.md" in git_log(vault)


async def test_a_restart_after_sending_does_not_send_again(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(SEVEN_UTC + timedelta(minutes=5))
    first = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_ada(brain)
        service = await start_scheduler(brain, first, poll_seconds=60)
        await service.stop()
    assert len(first.sent) == 1
    clock.advance(minutes=10)
    again = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        service = await start_scheduler(brain, again, poll_seconds=60)
        assert service.is_leader
        await service.run_due(clock())
        await service.stop()
    assert again.sent == []


async def test_two_schedulers_on_one_database_send_once(tmp_path: Path, database_url: str) -> None:
    clock = Clock(SEVEN_UTC + timedelta(minutes=5))
    outboxes = [Outbox(clock), Outbox(clock)]
    async with (
        running_brain(tmp_path, database_url, clock=clock) as one,
        running_brain(tmp_path, database_url, clock=clock) as two,
    ):
        await add_ada(one)
        services = [
            await start_scheduler(one, outboxes[0], poll_seconds=60),
            await start_scheduler(two, outboxes[1], poll_seconds=60),
        ]
        assert [s.is_leader for s in services] == [True, False]
        # Even when both decide at the same moment, the digest log lets one through.
        for service in services:
            await service.run_due(clock())
        for service in services:
            await service.stop()
    assert len(outboxes[0].sent) + len(outboxes[1].sent) == 1


@pytest.mark.parametrize(
    ("late", "sent"),
    [(timedelta(hours=1, minutes=59), True), (timedelta(hours=2, minutes=1), False)],
)
async def test_after_downtime_only_a_digest_missed_within_the_grace_period_is_sent(
    tmp_path: Path,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
    late: timedelta,
    sent: bool,
) -> None:
    clock = Clock(SEVEN_UTC + late)
    outbox = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        with caplog.at_level(logging.WARNING, logger="scheduler.service"):
            service = await start_scheduler(brain, outbox, poll_seconds=60)
        await service.stop()
        (entry,) = await service.ledger.entries("digest", user_id=ada.id)
    assert (len(outbox.sent) == 1) is sent
    assert entry.local_date == date(2026, 11, 20)
    if sent:
        assert entry.status == "sent"
    else:
        assert entry.status == "skipped" and "missed by 2:01:00" in entry.detail
        assert "skipped: missed by 2:01:00" in caplog.text


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        # Spring forward: 02:30 does not exist in Berlin; the digest comes at 03:30 CEST.
        (date(2026, 3, 29), datetime(2026, 3, 29, 1, 30, tzinfo=UTC)),
        # Fall back: 02:30 happens twice; the digest comes at the first one only.
        (date(2026, 10, 25), datetime(2026, 10, 25, 0, 30, tzinfo=UTC)),
    ],
)
async def test_dst_days_get_exactly_one_digest(
    tmp_path: Path, database_url: str, day: date, expected: datetime
) -> None:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC) - timedelta(days=1)
    clock = Clock(start)
    outbox = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_ada(brain, digest_time="02:30")
        service = build_service(brain, outbox)
        while clock() < start + timedelta(days=3):
            await service.run_due(clock())
            clock.advance(minutes=15)
    days = [reply.text.split(" for ", 1)[1].split("\n", 1)[0] for _, _, reply in outbox.sent]
    assert len(days) == len(set(days)) == 3, days
    (on_the_day,) = [at for at, _, reply in outbox.sent if day.isoformat() in reply.text[:60]]
    assert on_the_day == expected


async def test_a_job_failing_at_every_poll_costs_no_leadership_and_no_digest_job(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(SEVEN_UTC + timedelta(minutes=5))
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        bob = await add_ada(brain, user_id="U2", chat_id="chat-2")
        await brain.database.create_schema()  # what start_scheduler does first
        # The index is unreadable: every digest and every reminder poll fails.
        async with brain.database.engine.begin() as conn:
            await conn.execute(text("ALTER TABLE entries RENAME TO entries_away"))
        with caplog.at_level(logging.INFO):
            service = build_service(brain, Outbox(clock), poll_seconds=0.02)
            await service.start()
            try:
                async with asyncio.timeout(20):
                    # The scheduler polls on its own; the test only watches.
                    while caplog.text.count("job _reminders failed") < 10:  # noqa: ASYNC110
                        await asyncio.sleep(0.02)
                jobs = {job.id for job in service.scheduler.get_jobs()}
                leading, log = service.is_leader, caplog.text
            finally:
                await service.stop()
                async with brain.database.engine.begin() as conn:
                    await conn.execute(text("ALTER TABLE entries_away RENAME TO entries"))
    assert leading and log.count("now runs the digest scheduler") == 1
    assert "no longer runs the digest scheduler" not in log
    assert jobs == {job_id(ada.id), job_id(bob.id)}


_REFUSE_ADA = (
    "CREATE FUNCTION refuse_ada() RETURNS trigger AS $$ BEGIN"
    " IF NEW.user_id = {ada} THEN RAISE EXCEPTION 'no room for user {ada}'; END IF;"
    " RETURN NEW; END $$ LANGUAGE plpgsql",
    "CREATE TRIGGER refuse_ada BEFORE INSERT ON send_ledger"
    " FOR EACH ROW EXECUTE FUNCTION refuse_ada()",
)


async def test_one_person_s_failing_digest_is_recorded_and_the_others_go_on(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(SEVEN_UTC + timedelta(hours=3))  # past the grace: each is logged as skipped
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain)
        bob = await add_ada(brain, user_id="U2", chat_id="chat-2")
        service = build_service(brain, Outbox(clock))
        async with brain.database.engine.begin() as conn:
            for statement in _REFUSE_ADA:
                await conn.execute(text(statement.replace("{ada}", str(ada.id))))
        outcomes = await service.run_due(clock())
        (row,) = await service.skipped.kept("digest")
        async with brain.database.engine.begin() as conn:
            await conn.execute(text("DROP TRIGGER refuse_ada ON send_ledger"))
        clock.advance(days=1)
        await service.run_due(clock())  # Ada's works again: off doctor's list
        after = await service.skipped.kept("digest")
    assert [(slot.user_id, sent.status) for slot, sent in outcomes] == [(bob.id, "skipped")]
    assert (row.path, row.vault_id) == (f"user {ada.id}", 0)
    assert f"no room for user {ada.id}" in row.reason
    assert after == []


async def test_a_person_created_after_the_days_digest_time_has_nothing_skipped(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(SEVEN_UTC + timedelta(hours=3))  # 11:00 in Berlin, past the grace
    outbox = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        ada = await add_ada(brain, since=timedelta(minutes=5))  # she came at 10:55
        with caplog.at_level(logging.WARNING, logger="scheduler.service"):
            service = await start_scheduler(brain, outbox, poll_seconds=60)
            await service.run_due(clock())
            clock.advance(hours=21)  # 08:00 the next morning
            await service.run_due(clock())
        await service.stop()
        log = await service.ledger.entries("digest", user_id=ada.id)
    assert "skipped" not in caplog.text
    assert [(e.local_date, e.status) for e in log] == [(date(2026, 11, 21), "sent")]
    assert len(outbox.sent) == 1
