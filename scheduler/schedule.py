"""When each person's digests are due: pure date arithmetic, no timers.

A slot is one digest for one person on one local date. Its instant is the local
time of day on that date in the person's zone, turned into UTC:

- a time that does not exist (spring forward, 02:30 in Europe/Berlin on the last
  Sunday of March) fires at the same wall-clock offset as before the change, i.e.
  03:30 local, once;
- a time that happens twice (fall back, 02:30 on the last Sunday of October)
  fires at its first occurrence, once.

Slots are keyed by local date, so a day can neither be skipped nor doubled.
On the weekly review day the weekly review takes the daily digest's place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from storage.db import WEEKLY_OFF, Person
from storage.text.dates import NotATimeOfDay, local_zone, time_of_day

Kind = Literal["daily", "weekly"]


@dataclass(frozen=True, slots=True)
class Slot:
    """One digest to send: who, which local date and kind, and the UTC instant it is due."""

    user_id: int
    kind: Kind
    local_date: date
    due_at: datetime


@dataclass(frozen=True, slots=True)
class DigestSchedule:
    """One person's digest times: every day at `at` in `zone`; the weekly review on
    `weekly_day` (0 = Monday; None: no weekly review) replaces that day's daily digest."""

    user_id: int
    zone: ZoneInfo
    at: time
    weekly_day: int | None

    def kind_on(self, day: date) -> Kind:
        return "weekly" if day.weekday() == self.weekly_day else "daily"

    def instant(self, day: date) -> datetime:
        """The UTC instant of the digest on local date `day` (see the module doc for DST)."""
        local = datetime.combine(day, self.at, tzinfo=self.zone)  # fold=0: see module doc
        return local.astimezone(UTC)

    def slot(self, day: date) -> Slot:
        return Slot(self.user_id, self.kind_on(day), day, self.instant(day))

    def next_after(self, moment: datetime) -> Slot:
        """The first slot due strictly after `moment`."""
        day = moment.astimezone(self.zone).date() - timedelta(days=1)
        while True:
            slot = self.slot(day)
            if slot.due_at > moment:
                return slot
            day += timedelta(days=1)

    def latest_until(self, moment: datetime) -> Slot:
        """The last slot due at or before `moment`."""
        day = moment.astimezone(self.zone).date() + timedelta(days=1)
        while True:
            slot = self.slot(day)
            if slot.due_at <= moment:
                return slot
            day -= timedelta(days=1)


def schedule_for(
    person: Person, *, default_time: time, default_zone: ZoneInfo
) -> DigestSchedule | None:
    """The person's schedule, their own settings first, then the deployment's defaults;
    None when they turned the digest off. A setting that cannot be scheduled (a zone
    this machine does not know) falls back to the default rather than losing the digest."""
    if not person.digest_enabled:
        return None
    try:
        at = time_of_day(person.digest_time) if person.digest_time else default_time
    except NotATimeOfDay:
        at = default_time
    zone = local_zone(person.timezone, default_zone)
    weekly = person.weekly_day if 0 <= person.weekly_day < WEEKLY_OFF else None
    return DigestSchedule(person.id, zone, at, weekly)
