"""The digest scheduler: APScheduler jobs built from the users table, run by one
process at a time.

- The users table is the source of truth. The leader builds one job per person
  (a MemoryJobStore: nothing to go stale), refreshes them from the table at every
  leadership poll (a change made through another process arrives within one poll
  interval) and at once when a change is made through this one.
- Each job's trigger is the person's `DigestSchedule`, so APScheduler fires at the
  instants `scheduler.schedule` computes (DST-safe). The job calls `run_due(now)`,
  which is where the decisions are made, and which tests drive with their own clock.
- On taking office, the leader sends digests missed less than BRAINBOT_DIGEST_GRACE
  ago; older ones are recorded as skipped and logged.
- At every poll the leader also makes the due attempts of failed sends (see
  scheduler.retry) and sends the reminders that are due (scheduler.reminders), so
  a reminder goes out within one poll interval of its time.
- Every TEAM_SWEEP the leader asks Slack and Telegram about each team membership
  not confirmed within BRAINBOT_TEAM_CHECK_HOURS (bot.people.teams): someone who
  left a team's chat loses the membership within that bound and a sweep.
- A failure stays where it happened: one person's digest that raises is recorded as
  skipped (`digest`, for `brainbot doctor`) and the others are sent; a job of the
  poll that raises is logged and counted, and the next job runs. None of it costs
  the leadership (and with it everyone's digest jobs): only losing the lock does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta

from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.config import Settings
from bot.people import TeamMembership
from scheduler.delivery import DigestDelivery, Sent
from scheduler.leader import Leadership
from scheduler.reminders import Reminders
from scheduler.schedule import DigestSchedule, Slot, schedule_for
from scheduler.skips import PollSkips
from storage.db import NO_VAULT, DigestKey, Person, Records, SendLedger, SkippedItems
from storage.text.dates import WEEKDAY_NAMES

log = logging.getLogger(__name__)

PARALLEL_SENDS = 4  # a catch-up after downtime sends to this many people at once
TEAM_SWEEP = timedelta(hours=1)
WHERE = "digest"  # where a person's failed digest is recorded (storage.db.skipped)


class DigestTrigger(BaseTrigger):  # type: ignore[misc]
    """APScheduler trigger firing at a person's digest instants."""

    __slots__ = ("plan",)

    def __init__(self, plan: DigestSchedule) -> None:
        self.plan = plan

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        after = previous_fire_time if previous_fire_time is not None else now
        return self.plan.next_after(after).due_at

    def __str__(self) -> str:
        day = self.plan.weekly_day
        weekly = "no weekly review"
        if day is not None:
            weekly = f"weekly review on {WEEKDAY_NAMES[day].title()}"
        return f"digest[{self.plan.at:%H:%M} {self.plan.zone.key}, {weekly}]"


def job_id(user_id: int) -> str:
    return f"digest-{user_id}"


def person_key(user_id: int) -> str:
    """What a person's failed digest is recorded under (storage.db.skipped's path)."""
    return f"user {user_id}"


class DigestService:
    """Leadership, the APScheduler jobs, and `run_due` (see the module doc)."""

    def __init__(
        self,
        *,
        delivery: DigestDelivery,
        records: Records,
        ledger: SendLedger,
        settings: Settings,
        engine: AsyncEngine,
        clock: Callable[[], datetime],
        skipped: SkippedItems,
        poll_seconds: float = 10.0,
        reminders: Reminders | None = None,
        teams: TeamMembership | None = None,
    ) -> None:
        self.delivery = delivery
        self.skipped = skipped
        self.reminders = reminders
        self.teams = teams
        self._swept_at: datetime | None = None
        self.records = records
        self.ledger = ledger
        self.settings = settings
        self.clock = clock
        self.grace = timedelta(seconds=settings.digest_grace_seconds)
        self.scheduler = AsyncIOScheduler(
            timezone=UTC,
            jobstores={"default": MemoryJobStore()},
            job_defaults={
                "coalesce": True,
                "max_instances": 1,
                # A job that runs late (a blocked loop, a suspended machine) still runs
                # within the grace period; `run_due` decides what it sends.
                "misfire_grace_time": max(1, int(self.grace.total_seconds())),
            },
        )
        self.leadership = Leadership(
            engine,
            on_elected=self._take_office,
            on_deposed=self._leave_office,
            while_leading=self.tick,
            poll_seconds=poll_seconds,
        )
        self.plans: dict[int, DigestSchedule] = {}

    async def start(self) -> None:
        """Start the (idle) scheduler and compete for leadership; returns at once."""
        self.scheduler.start()
        await self.leadership.start()

    async def stop(self) -> None:
        """Give up leadership (another process takes over) and stop the scheduler."""
        await self.leadership.stop()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    @property
    def is_leader(self) -> bool:
        return self.leadership.is_leader

    def plan_for(self, person: Person) -> DigestSchedule | None:
        return schedule_for(
            person, default_time=self.settings.digest_time, default_zone=self.settings.timezone
        )

    # --- jobs -------------------------------------------------------------------------

    async def refresh(self) -> None:
        """Bring the jobs in line with the users table."""
        self._apply({p.id: self.plan_for(p) for p in await self.records.people.all()})

    async def on_settings_changed(self, person: Person) -> None:
        """People.listeners callback: reschedule this person now (when leading here)."""
        if self.is_leader:
            self._apply({person.id: self.plan_for(person)}, complete=False)

    def _apply(self, plans: dict[int, DigestSchedule | None], *, complete: bool = True) -> None:
        gone = set(self.plans) - set(plans) if complete else set()
        for user_id in gone:
            self._unschedule(user_id)
        for user_id, plan in plans.items():
            if plan is None:
                self._unschedule(user_id)
            elif self.plans.get(user_id) != plan:
                self.plans[user_id] = plan
                self.scheduler.add_job(
                    self._fire,
                    trigger=DigestTrigger(plan),
                    args=(user_id,),
                    id=job_id(user_id),
                    name=f"digest for user {user_id}",
                    replace_existing=True,
                )
                upcoming = plan.next_after(self.clock())
                log.debug(
                    "digest for user %s: next %s digest at %s",
                    user_id,
                    upcoming.kind,
                    upcoming.due_at.isoformat(),
                )

    def _unschedule(self, user_id: int) -> None:
        if self.plans.pop(user_id, None) is not None:
            self.scheduler.remove_job(job_id(user_id))

    async def tick(self) -> None:
        """Between polls, while leading: follow the users table, retry failed sends
        whose time has come, send due reminders, check stale team memberships; each on
        its own (see `_each`)."""
        await self._each(self._refresh, self.retry_due, self._reminders, self.sweep_teams)

    async def _take_office(self) -> None:
        await self._each(self._refresh, self.run_due, self.retry_due, self._reminders)

    async def _each(self, *jobs: Callable[[datetime], Awaitable[object]]) -> None:
        """Run the jobs of a poll in turn; one that raises is logged and counted, and the
        next runs (it is tried again at the next poll)."""
        now = self.clock()
        for job in jobs:
            try:
                await job(now)
            except Exception:
                log.exception("scheduler job %s failed; the others go on", job.__name__)
                self.skipped.counted("scheduler")

    async def _refresh(self, now: datetime) -> None:
        await self.refresh()

    async def _reminders(self, now: datetime) -> None:
        if self.reminders is not None:
            await self.reminders.run_due(now)

    async def sweep_teams(self, now: datetime) -> None:
        """Check the stale team memberships against their chats, once per TEAM_SWEEP;
        a failure is logged and tried at the next sweep (digests go on regardless)."""
        if self.teams is None or (self._swept_at is not None and now - self._swept_at < TEAM_SWEEP):
            return
        self._swept_at = now
        try:
            swept = await self.teams.sweep()
        except Exception:
            log.exception("checking team memberships failed")
            return
        if swept.confirmed or swept.removed or swept.unknown:
            log.info(
                "team memberships checked: %d confirmed, %d removed, %d not answered",
                swept.confirmed,
                swept.removed,
                swept.unknown,
            )

    async def _leave_office(self) -> None:
        self.scheduler.remove_all_jobs()
        self.plans.clear()

    async def _fire(self, user_id: int) -> None:
        await self.run_due(self.clock(), user_ids=(user_id,))

    # --- decisions ------------------------------------------------------------------

    async def run_due(
        self, now: datetime, user_ids: Iterable[int] | None = None
    ) -> list[tuple[Slot, Sent]]:
        """For each person (or those in `user_ids`), take their latest slot due at or
        before `now`: send it when it is less than the grace period old (the digest
        ledger lets it through only once), else record it as skipped. A person whose
        digest raises is recorded as skipped (`digest`); the others go on."""
        wanted = None if user_ids is None else set(user_ids)
        people = [p for p in await self.records.people.all() if wanted is None or p.id in wanted]
        gate = asyncio.Semaphore(PARALLEL_SENDS)
        skips = await PollSkips.load(self.skipped, WHERE, now)

        async def one(person: Person) -> tuple[Slot, Sent] | None:
            try:
                return await due(person)
            except Exception as exc:
                reason = f"{type(exc).__name__}: {exc}; not sent"
                if await skips.failed(NO_VAULT, person_key(person.id), reason):
                    log.error("digest for user %s failed", person.id, exc_info=exc)
                return None

        async def due(person: Person) -> tuple[Slot, Sent] | None:
            plan = self.plan_for(person)
            if plan is None:
                return None
            slot = plan.latest_until(now)
            if person.created_at is not None and slot.due_at < person.created_at:
                return None  # the person did not exist then: nothing was missed
            late = now - slot.due_at
            if late <= self.grace:
                async with gate:
                    return slot, await self.delivery.send(person, slot)
            if await self.ledger.claim(
                DigestKey(person.id, slot.local_date, slot.kind),
                due_at=slot.due_at,
                now=now,
                status="skipped",
                detail=f"missed by {late}, more than the grace period of {self.grace}",
            ):
                log.warning(
                    "%s digest for user %s on %s skipped: missed by %s (grace %s)",
                    slot.kind,
                    person.id,
                    slot.local_date,
                    late,
                    self.grace,
                )
                return slot, Sent("skipped")
            return None

        results = await asyncio.gather(*(one(p) for p in people))
        looked_at = {person_key(p.id) for p in people}
        await skips.settle(lambda key: wanted is None or key[1] in looked_at)
        return [r for r in results if r is not None]

    async def retry_due(self, now: datetime) -> list[Sent]:
        """Make the next attempt of each failed digest whose attempt is due."""
        due = await self.ledger.retries_due("digest", now)
        if not due:
            return []  # the usual poll: no people to load
        people = {p.id: p for p in await self.records.people.all()}
        outcomes: list[Sent] = []
        for entry in due:
            person = people.get(entry.digest.user_id)
            if person is not None:
                outcomes.append(await self.delivery.retry(person, entry))
        return outcomes
