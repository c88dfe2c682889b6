"""Digest instants: each person's local time, once per local date, DST days included."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from scheduler.schedule import DigestSchedule, schedule_for
from storage.db.people import Person

BERLIN = "Europe/Berlin"
UTC_ZONE = ZoneInfo("UTC")


def person(**values: object) -> Person:
    fields: dict[str, object] = {
        "id": 1,
        "name": "Ada",
        "timezone": BERLIN,
        "digest_enabled": True,
        "digest_time": "08:00",
        "weekly_day": 6,
    }
    fields.update(values)
    return Person(**fields)  # type: ignore[arg-type]


def schedule(**values: object) -> DigestSchedule:
    found = schedule_for(person(**values), default_time=time(8), default_zone=UTC_ZONE)
    assert found is not None
    return found


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_eight_in_berlin_is_seven_utc_in_winter_and_six_in_summer() -> None:
    assert schedule().next_after(utc(2026, 11, 19, 9)).due_at == utc(2026, 11, 20, 7)
    assert schedule().next_after(utc(2026, 7, 1, 5)).due_at == utc(2026, 7, 1, 6)


def test_next_is_strictly_after_and_latest_is_at_or_before() -> None:
    plan = schedule()
    due = utc(2026, 11, 20, 7)
    assert plan.next_after(due).due_at == due + timedelta(days=1)
    assert plan.latest_until(due).due_at == due
    assert plan.latest_until(due - timedelta(seconds=1)).due_at == due - timedelta(days=1)


@pytest.mark.parametrize(
    ("day", "at", "expected_utc"),
    [
        # Spring forward (29 March 2026): 02:00-03:00 does not exist; 02:30 fires at 03:30.
        (date(2026, 3, 29), "02:30", utc(2026, 3, 29, 1, 30)),
        (date(2026, 3, 29), "08:00", utc(2026, 3, 29, 6)),
        # Fall back (25 October 2026): 02:30 happens twice; the first one fires.
        (date(2026, 10, 25), "02:30", utc(2026, 10, 25, 0, 30)),
        (date(2026, 10, 25), "08:00", utc(2026, 10, 25, 7)),
    ],
)
def test_dst_days_fire_once_at_the_expected_instant(
    day: date, at: str, expected_utc: datetime
) -> None:
    plan = schedule(digest_time=at)
    slots = []
    moment = utc(day.year, day.month, day.day) - timedelta(days=2)
    while moment < utc(day.year, day.month, day.day) + timedelta(days=3):
        slot = plan.next_after(moment)
        slots.append(slot)
        moment = slot.due_at
    dates = [s.local_date for s in slots]
    assert dates == sorted(set(dates)), "a local date was doubled"
    assert all(b - a == timedelta(days=1) for a, b in itertools.pairwise(dates))
    (on_the_day,) = [s for s in slots if s.local_date == day]
    assert on_the_day.due_at == expected_utc


def test_every_hour_across_both_dst_weeks_sees_each_date_once() -> None:
    """Walk hour by hour through the DST weeks: every local date's digest is the latest
    slot at some point exactly once in order, at every time of day."""
    for at in ("00:00", "01:59", "02:00", "02:30", "03:00", "23:30"):
        plan = schedule(digest_time=at)
        for start in (utc(2026, 3, 26), utc(2026, 10, 22)):
            seen: list[date] = []
            for minutes in range(0, 6 * 24 * 60, 15):
                slot = plan.latest_until(start + timedelta(minutes=minutes))
                if not seen or seen[-1] != slot.local_date:
                    seen.append(slot.local_date)
            assert all(b - a == timedelta(days=1) for a, b in itertools.pairwise(seen))


def test_weekly_review_takes_the_daily_slot_on_its_day() -> None:
    plan = schedule(weekly_day=6)  # Sunday
    assert plan.slot(date(2026, 11, 22)).kind == "weekly"
    assert plan.slot(date(2026, 11, 23)).kind == "daily"


def test_defaults_fill_in_and_off_means_no_schedule() -> None:
    plan = schedule_for(
        person(timezone=None, digest_time=None),
        default_time=time(7, 15),
        default_zone=ZoneInfo("Asia/Tokyo"),
    )
    assert plan is not None
    assert plan.next_after(utc(2026, 11, 20)).due_at == utc(2026, 11, 20, 22, 15)
    assert (
        schedule_for(person(digest_enabled=False), default_time=time(8), default_zone=UTC_ZONE)
        is None
    )
    broken = schedule_for(
        person(timezone="Mars/Olympus"), default_time=time(8), default_zone=UTC_ZONE
    )
    assert broken is not None and broken.zone.key == "UTC"
