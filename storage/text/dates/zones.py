"""Times of day and time zones as settings name them: the one place `"07:30"` and
`"Europe/Berlin"` are read (BRAINBOT_DIGEST_TIME, BRAINBOT_REMINDER_TIME,
BRAINBOT_TIMEZONE, `/settings`, the settings tool, the digest schedule)."""

from __future__ import annotations

import re
from datetime import time
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_TIME_OF_DAY = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


class NotATimeOfDay(ValueError):
    """A text that is not a time of day as HH:MM (24 h)."""


class UnknownZone(ValueError):
    """A name this machine's time zone database does not know."""


def time_of_day(text: str) -> time:
    """`"07:30"` or `"7:30"` → 07:30; raises NotATimeOfDay for anything else ("25:99",
    "8am")."""
    match = _TIME_OF_DAY.fullmatch(text.strip())
    if match is None:
        raise NotATimeOfDay(f"{text.strip()!r} is not a time of day as HH:MM (24 h), e.g. 07:30")
    return time(int(match.group(1)), int(match.group(2)))


def clock(at: time) -> str:
    """A time of day as settings write it: 07:30."""
    return f"{at:%H:%M}"


def zone_named(name: str) -> ZoneInfo:
    """The IANA zone `name` ("Europe/Berlin"); raises UnknownZone for any other name."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise UnknownZone(
            f"{name.strip()!r} is not a time zone this machine knows; use an IANA name "
            "such as Europe/Berlin or America/New_York"
        ) from exc


@lru_cache(maxsize=1024)  # a name means the same zone all along: each is looked up once
def local_zone(name: str | None, default: ZoneInfo) -> ZoneInfo:
    """A person's zone by name, else the deployment's default (also for a name this
    machine's zone database does not know, e.g. one a platform reported)."""
    if not name:
        return default
    try:
        return zone_named(name)
    except UnknownZone:
        return default
