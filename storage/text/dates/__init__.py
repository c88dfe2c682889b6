"""Dates, times and repeats in people's words (English, German, French), read in the
person's time zone: what becomes `due`, `remind` and `repeat`; and times of day and
zones as settings name them; and the days a question about the past names
("what did I capture yesterday?"). Also the dates brainbot keeps (`bounds`), a day's and
a month's bounds in a zone (`days`), and ISO and frontmatter dates read (`iso`)."""

from storage.text.dates.bounds import FIRST_DAY, LAST_DAY, OutOfRange, bounded, bounded_day
from storage.text.dates.days import day_end, day_start, month_days
from storage.text.dates.iso import (
    frontmatter_dates,
    frontmatter_day,
    frontmatter_time,
    iso_day,
    iso_moment,
    iso_month,
)
from storage.text.dates.repeat import LONGEST_STEP
from storage.text.dates.spans import Span, question_span
from storage.text.dates.when import (
    When,
    describe,
    find_when,
    next_occurrence,
    parse_repeat,
    prepare,
    read_due,
    read_when,
)
from storage.text.dates.words import WEEKDAY_NAMES, WEEKDAYS
from storage.text.dates.zones import (
    NotATimeOfDay,
    UnknownZone,
    clock,
    local_zone,
    time_of_day,
    zone_named,
)

__all__ = [
    "FIRST_DAY",
    "LAST_DAY",
    "LONGEST_STEP",
    "WEEKDAYS",
    "WEEKDAY_NAMES",
    "NotATimeOfDay",
    "OutOfRange",
    "Span",
    "UnknownZone",
    "When",
    "bounded",
    "bounded_day",
    "clock",
    "day_end",
    "day_start",
    "describe",
    "find_when",
    "frontmatter_dates",
    "frontmatter_day",
    "frontmatter_time",
    "iso_day",
    "iso_moment",
    "iso_month",
    "local_zone",
    "month_days",
    "next_occurrence",
    "parse_repeat",
    "prepare",
    "question_span",
    "read_due",
    "read_when",
    "time_of_day",
    "zone_named",
]
