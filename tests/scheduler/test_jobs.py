"""The APScheduler side: the leader holds one job per person whose next run is the
person's next digest instant, and it follows settings changes at once."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from apscheduler.job import Job

from app.scheduling import start_scheduler
from scheduler.service import DigestService, DigestTrigger
from tests.bot.helpers import message
from tests.fakes.brain import running_brain
from tests.scheduler.outbox import Outbox, add_ada

BERLIN = ZoneInfo("Europe/Berlin")


def _job(service: DigestService, user_id: int) -> Job | None:
    return service.scheduler.get_job(f"digest-{user_id}")


def _assert_next_run_at(job: Job | None, local: time, zone: ZoneInfo = BERLIN) -> None:
    assert job is not None and isinstance(job.trigger, DigestTrigger)
    # APScheduler computes next runs from the real time, not the test's clock.
    now = datetime.now(UTC)
    assert now < job.next_run_time <= now + timedelta(days=1)
    assert job.next_run_time.astimezone(zone).time() == local


async def test_the_leader_holds_a_job_per_person_at_their_local_time(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain)
        bob = await add_ada(brain, user_id="U2", chat_id="chat-2", timezone="Asia/Tokyo")
        service = await start_scheduler(brain, Outbox(brain.engine.clock), poll_seconds=60)
        try:
            _assert_next_run_at(_job(service, ada.id), time(8, 0))
            _assert_next_run_at(_job(service, bob.id), time(8, 0), ZoneInfo("Asia/Tokyo"))
            assert "Europe/Berlin" in str(_job(service, ada.id).trigger)  # type: ignore[union-attr]
        finally:
            await service.stop()


async def test_a_settings_change_in_chat_reschedules_at_once(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain)
        service = await start_scheduler(brain, Outbox(brain.engine.clock), poll_seconds=60)
        try:
            await brain.engine.handle(message("/settings digest 07:30"))
            _assert_next_run_at(_job(service, ada.id), time(7, 30))
            await brain.engine.handle(message("/settings timezone America/New_York"))
            _assert_next_run_at(_job(service, ada.id), time(7, 30), ZoneInfo("America/New_York"))
            await brain.engine.handle(message("/settings digest off"))
            assert _job(service, ada.id) is None
            await brain.engine.handle(message("/settings digest on"))
            assert _job(service, ada.id) is not None
        finally:
            await service.stop()


async def test_a_change_made_through_another_process_arrives_at_the_next_poll(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain)
        service = await start_scheduler(brain, Outbox(brain.engine.clock), poll_seconds=60)
        try:
            await brain.records.people.update(ada.id, digest_time="06:15")
            newcomer = await add_ada(brain, user_id="U3", chat_id="chat-3")
            await service.leadership.poll()
            _assert_next_run_at(_job(service, ada.id), time(6, 15))
            _assert_next_run_at(_job(service, newcomer.id), time(8, 0))
        finally:
            await service.stop()
        assert service.scheduler.get_jobs() == []


async def test_a_follower_holds_no_jobs_until_it_takes_over(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        running_brain(tmp_path, database_url) as one,
        running_brain(tmp_path, database_url) as two,
    ):
        ada = await add_ada(one)
        leader = await start_scheduler(one, Outbox(one.engine.clock), poll_seconds=60)
        follower = await start_scheduler(two, Outbox(two.engine.clock), poll_seconds=60)
        try:
            assert follower.scheduler.get_jobs() == []
            await leader.stop()
            await follower.leadership.poll()
            assert follower.is_leader
            _assert_next_run_at(_job(follower, ada.id), time(8, 0))
        finally:
            await follower.stop()
