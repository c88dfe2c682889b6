"""The dates brainbot keeps: 1970-01-01 to 9999-12-31, and repeats at most a century
apart. One bad date in one note (`remind: 0001-01-01T00:00:00+14:00` cannot even be
converted to UTC; `FREQ=MONTHLY;INTERVAL=999999999999999999999` has no next month)
must not stop the scheduler for everyone, so such values are refused where they
enter (tool arguments, MCP) and read as invalid where they are found (a note's
frontmatter): both by `OutOfRange`.

A note's `created` and `updated` are also shown to people in any time zone, so a time
there is kept only while every zone can show it: up to 9999-12-31 10:00 UTC (the end of
9999 in UTC+14), `shown_everywhere`."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta, tzinfo

FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(9999, 12, 31)
# The last instant UTC+14 (the zone furthest ahead) still shows as a day kept.
SHOWN_UNTIL = datetime.combine(LAST_DAY, time.max, tzinfo=UTC) - timedelta(hours=14)
# A repeat whose next time is further off than this is a mistake, not a plan.
LONGEST_REPEAT_YEARS = 100


class OutOfRange(ValueError):
    """A date or time outside FIRST_DAY..LAST_DAY, or a repeat further apart than
    LONGEST_REPEAT_YEARS; the message says which and what is allowed."""


def out_of_range(value: object) -> OutOfRange:
    """The error for `value`, a date or time outside the dates kept."""
    return OutOfRange(
        f"{value!s} is outside the dates kept ({FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()})"
    )


def bounded(moment: datetime, zone: tzinfo) -> datetime:
    """`moment` in `zone`, when it lies within FIRST_DAY..LAST_DAY as written, in UTC
    and in `zone`; else OutOfRange (also for one that cannot be converted at all)."""
    try:
        local = moment.astimezone(zone)
        utc = moment.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise out_of_range(moment.isoformat()) from exc
    if not all(FIRST_DAY <= d <= LAST_DAY for d in (moment.date(), utc.date(), local.date())):
        raise out_of_range(moment.isoformat())
    return local


def shown_everywhere(moment: datetime) -> bool:
    """Whether every time zone shows the instant `moment` (aware) as a day kept."""
    return moment <= SHOWN_UNTIL


def kept_utc(moment: datetime) -> datetime | None:
    """The aware `moment` in UTC while it lies within the dates kept (`bounded`) and
    every time zone shows it as a day kept (`shown_everywhere`); None otherwise."""
    try:
        utc = bounded(moment, UTC)
    except OutOfRange:
        return None
    return utc if shown_everywhere(utc) else None


def kept_utcs(moments: Iterable[datetime | None]) -> list[datetime | None]:
    """`kept_utc` of each of `moments` (None stays None), checked in one call."""
    return [None if moment is None else kept_utc(moment) for moment in moments]


def bounded_day(day: date) -> date:
    """`day` when it lies within FIRST_DAY..LAST_DAY; else OutOfRange."""
    if not FIRST_DAY <= day <= LAST_DAY:
        raise out_of_range(day.isoformat())
    return day
