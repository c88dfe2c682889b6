"""What a capture's reply says about the dates it filed (bot.tools.dates.promise), read
with the dates themselves: in the person's zone, relative to the event's time."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.tools.dates import promise

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 17, 8, 0, tzinfo=BERLIN)  # a Tuesday


def test_a_reminder_is_promised_in_the_persons_zone() -> None:
    remind = datetime(2026, 11, 18, 8, 0, tzinfo=ZoneInfo("UTC"))  # 09:00 in Berlin
    assert promise({"remind": remind}, BERLIN, NOW) == "I'll remind you tomorrow at 09:00."


def test_a_repeat_follows_the_reminder_and_a_due_day_stands_alone() -> None:
    remind = datetime(2026, 11, 18, 9, 0, tzinfo=BERLIN)
    fields = {"remind": remind, "repeat": "every wednesday", "due": date(2026, 11, 20)}
    assert (
        promise(fields, BERLIN, NOW) == "I'll remind you tomorrow at 09:00, then every wednesday."
    )
    assert promise({"due": date(2026, 11, 20)}, BERLIN, NOW) == "Due 2026-11-20."
    assert promise({}, BERLIN, NOW) == ""
