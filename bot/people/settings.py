"""A person's own settings (digest time, on or off, time zone, weekly review day):
what `/settings` and the settings tool may change, and how they read back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import time
from zoneinfo import ZoneInfo

from storage.db import WEEKLY_DEFAULT, WEEKLY_OFF, Person
from storage.text.dates import (
    WEEKDAY_NAMES,
    WEEKDAYS,
    NotATimeOfDay,
    UnknownZone,
    clock,
    time_of_day,
    zone_named,
)

USAGE = (
    "Try /settings digest 07:30, /settings digest off, "
    "/settings timezone Europe/Berlin, /settings weekly sunday or /settings weekly off."
)


@dataclass(frozen=True, slots=True)
class SettingsChange:
    """What changes; None leaves a setting as it is. Setting a time turns the digest on;
    `weekly_enabled` turns the weekly review off, or back on (on Sunday if it was off)."""

    digest_time: time | None = None
    digest_enabled: bool | None = None
    timezone: ZoneInfo | None = None
    weekly_day: int | None = None
    weekly_enabled: bool | None = None

    @property
    def empty(self) -> bool:
        return self == SettingsChange()

    def columns(self, person: Person) -> dict[str, object]:
        """The person's columns this change writes (`person`: as they are now)."""
        values: dict[str, object] = {}
        if self.digest_time is not None:
            values["digest_time"] = clock(self.digest_time)
            values["digest_enabled"] = True
        if self.digest_enabled is not None:
            values["digest_enabled"] = self.digest_enabled
        if self.timezone is not None:
            values["timezone"] = self.timezone.key
        if self.weekly_enabled is False:
            values["weekly_day"] = WEEKLY_OFF
        elif self.weekly_enabled and person.weekly_day == WEEKLY_OFF:
            values["weekly_day"] = WEEKLY_DEFAULT
        if self.weekly_day is not None:
            values["weekly_day"] = self.weekly_day
        return values


def weekday(name: str) -> int:
    """0 for Monday … 6 for Sunday (in English, German or French); ValueError for any
    other word."""
    day = WEEKDAYS.get(name.strip().lower())
    if day is None:
        raise ValueError(f"the weekly review day must be one of {', '.join(WEEKDAY_NAMES)}")
    return day


def change_from_words(words: Sequence[str]) -> SettingsChange:
    """`digest 07:30|on|off`, `timezone Europe/Berlin`, `weekly sunday` as a change;
    ValueError with what to write instead."""
    what = words[0].lower() if words else ""
    rest = " ".join(words[1:]).strip()
    try:
        if what == "digest" and rest.lower() in ("on", "off"):
            return SettingsChange(digest_enabled=rest.lower() == "on")
        if what == "digest":
            return SettingsChange(digest_time=time_of_day(rest))
        if what in ("timezone", "tz"):
            return SettingsChange(timezone=zone_named(rest))
        if what == "weekly" and rest.lower() in ("on", "off"):
            return SettingsChange(weekly_enabled=rest.lower() == "on")
        if what == "weekly":
            return SettingsChange(weekly_day=weekday(rest))
    except (NotATimeOfDay, UnknownZone) as exc:
        raise ValueError(f"{exc}. Nothing changed.") from None
    raise ValueError(USAGE)


def describe_settings(person: Person, *, default_time: time, default_zone: ZoneInfo) -> str:
    """The person's settings as they are in effect, the install's defaults filled in."""
    digest = (
        f"daily digest at {person.digest_time or clock(default_time) + ' (the default)'}"
        if person.digest_enabled
        else "digest off"
    )
    zone = person.timezone or f"{default_zone.key} (the default)"
    weekly = (
        "weekly review off"
        if person.weekly_day == WEEKLY_OFF
        else f"weekly review on {WEEKDAY_NAMES[person.weekly_day % 7].title()}"
    )
    return f"Your settings: {digest}, time zone {zone}, {weekly}."
