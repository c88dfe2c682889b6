"""Dates outside 1970-01-01..9999-12-31 and repeats further apart than a century are
read as invalid (OutOfRange, with a message a person can act on), never as an
overflow that stops whoever reads them; a series that would go past 9999 ends."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from storage.text.dates import OutOfRange, next_occurrence, parse_repeat, read_due, read_when

BERLIN = ZoneInfo("Europe/Berlin")
KIRITIMATI = ZoneInfo("Pacific/Kiritimati")  # UTC+14
NOW = datetime(2026, 11, 23, 14, 0, tzinfo=BERLIN)


@pytest.mark.parametrize(
    "value",
    [
        "0001-01-01T00:00:00+14:00",  # no UTC time at all: an OverflowError before
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
        "9999-12-31T23:00:00-05:00",  # year 10000 in UTC
        date(1, 1, 1),
        "1969-12-31 09:00",
    ],
)
def test_a_remind_outside_the_dates_kept_is_out_of_range(value: object) -> None:
    with pytest.raises(OutOfRange, match=r"outside the dates kept \(1970-01-01 to 9999-12-31\)"):
        read_when(value, now=NOW, zone=BERLIN)


def test_a_time_valid_in_utc_but_not_in_the_person_s_zone_is_out_of_range() -> None:
    with pytest.raises(OutOfRange):
        read_when("9999-12-31T12:00:00+00:00", now=NOW, zone=KIRITIMATI)
    berlin = read_when("9999-12-31T12:00:00+00:00", now=NOW, zone=BERLIN)
    assert berlin == datetime(9999, 12, 31, 13, 0, tzinfo=BERLIN)


def test_a_due_outside_the_dates_kept_is_out_of_range() -> None:
    with pytest.raises(OutOfRange):
        read_due("0001-01-01T00:00:00+14:00", now=NOW, zone=BERLIN)
    with pytest.raises(OutOfRange):
        read_due(date(1969, 12, 31), now=NOW, zone=BERLIN)
    assert read_due("9999-12-31", now=NOW, zone=BERLIN) == date(9999, 12, 31)


@pytest.mark.parametrize(
    "rule",
    [
        "FREQ=MONTHLY;INTERVAL=999999999999999999999",  # an OverflowError before
        "FREQ=YEARLY;INTERVAL=100000",
        "FREQ=YEARLY;INTERVAL=101",
        "FREQ=MONTHLY;INTERVAL=1201",
        "FREQ=WEEKLY;INTERVAL=5218",
        "FREQ=DAILY;INTERVAL=36526",
    ],
)
def test_a_repeat_further_apart_than_a_century_is_refused(rule: str) -> None:
    with pytest.raises(OutOfRange, match="further apart than 100 years"):
        next_occurrence(rule, NOW, NOW)
    with pytest.raises(OutOfRange):
        parse_repeat(rule)


def test_a_century_apart_is_still_a_repeat() -> None:
    assert next_occurrence("FREQ=YEARLY;INTERVAL=100", NOW, NOW) == NOW.replace(year=2126)
    assert parse_repeat("every 99 years") == "every 99 years"


@pytest.mark.parametrize("rule", ["daily", "every monday", "monthly", "yearly"])
def test_a_series_that_would_go_past_9999_ends(rule: str) -> None:
    last = datetime(9999, 12, 31, 9, 0, tzinfo=BERLIN)
    assert next_occurrence(rule, last, last) is None
