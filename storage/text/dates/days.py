"""A day's and a month's bounds: the first and last day of a month, and the instants a
local day starts and ends in a time zone (the end is the next day's start, exclusive),
for filters ("after:2026-11", "what did I file yesterday?") and the digest's span.

At the edges of the dates kept (storage.text.dates.bounds) the bounds stay representable: a
day's end past 9999-12-31 is the last instant Python can hold, a start before year 1
in UTC the first, so `before:9999-12-31` or `after:0001-01-01` searches instead of
overflowing.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta, tzinfo

__all__ = ["day_end", "day_start", "month_days"]

_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def month_days(year: int, month: int) -> tuple[date, date]:
    """The first and the last day of a month (`2026, 2` → 2026-02-01, 2026-02-28);
    ValueError for a month that is not one (13, year 0)."""
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, not {month}")
    first = date(year, month, 1)
    return first, first.replace(day=calendar.monthrange(year, month)[1])


def day_start(day: date, zone: tzinfo = UTC) -> datetime:
    """The first instant of local date `day` in `zone`, in UTC (where midnight is
    skipped by a clock change, the instant the day begins)."""
    try:
        return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)
    except OverflowError:
        return _EARLIEST if day.year == 1 else _LATEST


def day_end(day: date, zone: tzinfo = UTC) -> datetime:
    """The first instant after local date `day` in `zone`, in UTC: the end of a span
    that includes the whole day (`< day_end`)."""
    if day == date.max:
        return _LATEST
    return day_start(day + timedelta(days=1), zone)
