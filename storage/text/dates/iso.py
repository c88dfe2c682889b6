"""Dates written as ISO 8601, and dates in a note's frontmatter, read one way wherever
brainbot reads them (a model's tool arguments, a search's `after:`, a note's `due`,
`created` and `updated`).

- A day is `YYYY-MM-DD`; a month `YYYY-MM`; a moment any ISO 8601 date and time
  Python reads (`2026-11-24T09:00`, `2026-11-24 09:00:00+01:00`).
- A frontmatter day (`due:`) is a YAML date, a date and time (its own date, as written),
  or text that starts with a day (`2026-11-24`, `2026-11-24T09:00`, `2026-11-24 (soft)`).
- A frontmatter time (`created:`, `updated:`) is a YAML date or date and time, or ISO
  text; one without an offset is wall time in the note's zone (UTC without one). One
  outside the dates kept (storage.text.dates.bounds) is read as absent.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, tzinfo

from storage.text.dates.bounds import kept_utc, kept_utcs

__all__ = [
    "frontmatter_dates",
    "frontmatter_day",
    "frontmatter_time",
    "iso_day",
    "iso_moment",
    "iso_month",
]

_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")


def iso_day(text: str) -> date | None:
    """`YYYY-MM-DD` (spaces aside) as a date; None for anything else (2026-02-30)."""
    found = _DAY.fullmatch(text.strip())
    if found is None:
        return None
    try:
        return date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        return None


def iso_month(text: str) -> tuple[int, int] | None:
    """`YYYY-MM` (spaces aside) as (year, month); None for anything else."""
    found = _MONTH.fullmatch(text.strip())
    if found is None or not 1 <= int(found[2]) <= 12 or int(found[1]) < 1:
        return None
    return int(found[1]), int(found[2])


def iso_moment(text: str) -> date | datetime | None:
    """An ISO 8601 day (a date) or date and time (a datetime, naive when written
    without an offset), the way models write them; None for anything else."""
    text = text.strip()
    if (day := iso_day(text)) is not None or _DAY.fullmatch(text):
        return day
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def frontmatter_day(value: object) -> date | None:
    """The day a frontmatter value names (see the module doc), or None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return iso_day(value.strip()[:10])
    return None


def frontmatter_time(value: object, zone: tzinfo | None = None) -> datetime | None:
    """A frontmatter time as an aware UTC datetime, wall time read in `zone` (UTC when
    None); None when absent, unreadable or outside the dates kept."""
    stamp = _stamp(value, zone)
    return None if stamp is None else kept_utc(stamp)


def frontmatter_dates(
    created: object, updated: object, due: object, zone: tzinfo | None = None
) -> tuple[datetime | None, datetime | None, date | None]:
    """A note's `created` and `updated` (as `frontmatter_time` reads them, their bounds
    checked together) and its `due` day (`frontmatter_day`), read in one call."""
    created_at, updated_at = kept_utcs((_stamp(created, zone), _stamp(updated, zone)))
    return created_at, updated_at, frontmatter_day(due)


def _stamp(value: object, zone: tzinfo | None) -> datetime | None:
    """A frontmatter time as an aware datetime (wall time in `zone`, UTC when None),
    its bounds not checked yet; None when absent or unreadable."""
    if isinstance(value, datetime):
        stamp = value
    elif isinstance(value, date):
        stamp = datetime.combine(value, time())
    elif isinstance(value, str):
        try:
            stamp = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    return stamp.replace(tzinfo=zone or UTC) if stamp.tzinfo is None else stamp
