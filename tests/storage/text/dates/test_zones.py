"""Times of day and zones as settings write them: read in one place, refused with
the reason when they are not one."""

from __future__ import annotations

from datetime import time
from zoneinfo import ZoneInfo

import pytest

from storage.text.dates.zones import NotATimeOfDay, UnknownZone, local_zone, time_of_day, zone_named


def test_times_of_day_are_checked() -> None:
    assert time_of_day("7:05") == time(7, 5)
    assert time_of_day(" 23:59 ") == time(23, 59)
    for bad in ("24:00", "8", "08:60", "eight", "8am", "25:99", ""):
        with pytest.raises(NotATimeOfDay, match="HH:MM"):
            time_of_day(bad)


def test_zones_are_checked_and_a_persons_unknown_zone_falls_back() -> None:
    assert zone_named("Europe/Berlin").key == "Europe/Berlin"
    for bad in ("Mars/Olympus", "", "../etc/passwd", "Europe/"):
        with pytest.raises(UnknownZone, match="IANA"):
            zone_named(bad)
    tokyo = ZoneInfo("Asia/Tokyo")
    assert local_zone("Mars/Olympus", tokyo) is tokyo
    assert local_zone(None, tokyo) is tokyo
    assert local_zone("Europe/Paris", tokyo).key == "Europe/Paris"


def test_a_zone_looked_up_before_still_falls_back_to_the_default_asked() -> None:
    """Each name is looked up once for the process: an unknown one still falls back to
    the default of the install that asks (tests run several in one process)."""
    tokyo, lima = ZoneInfo("Asia/Tokyo"), ZoneInfo("America/Lima")
    assert local_zone("Mars/Olympus", tokyo) is tokyo
    assert local_zone("Mars/Olympus", lima) is lima
    assert local_zone(None, lima) is lima
    assert local_zone("Europe/Paris", tokyo) is local_zone("Europe/Paris", lima)
