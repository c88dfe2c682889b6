"""A day's and a month's bounds, one reading for filters, questions and the digest: a
local day starts at its first instant in the zone, ends where the next one starts, and
the edges of the dates kept stay representable."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from storage.text.dates import day_end, day_start, frontmatter_day, iso_day, iso_month, month_days

BERLIN = ZoneInfo("Europe/Berlin")
SANTIAGO = ZoneInfo("America/Santiago")  # clocks skip midnight in September


def test_a_local_day_in_utc() -> None:
    assert day_start(date(2026, 11, 24), BERLIN) == datetime(2026, 11, 23, 23, tzinfo=UTC)
    assert day_end(date(2026, 11, 24), BERLIN) == datetime(2026, 11, 24, 23, tzinfo=UTC)
    # 2026-09-06 00:00 does not exist in Santiago: the day starts at 01:00 (-03:00).
    assert day_start(date(2026, 9, 6), SANTIAGO) == datetime(2026, 9, 6, 4, tzinfo=UTC)


def test_the_edges_stay_representable() -> None:
    assert day_end(date(9999, 12, 31), ZoneInfo("Pacific/Kiritimati")) == datetime.max.replace(
        tzinfo=UTC
    )
    assert day_start(date(1, 1, 1)) == datetime.min.replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("year", "month", "last"),
    [(2026, 2, 28), (2024, 2, 29), (2026, 12, 31), (9999, 12, 31), (1, 1, 31)],
)
def test_a_month_s_first_and_last_day(year: int, month: int, last: int) -> None:
    assert month_days(year, month) == (date(year, month, 1), date(year, month, last))


def test_iso_days_and_months_and_frontmatter_days() -> None:
    assert iso_day(" 2026-11-24 ") == date(2026, 11, 24)
    assert iso_day("2026-02-30") is None and iso_day("20261124") is None
    assert iso_day("\uff12\uff10\uff12\uff16-11-24") is None  # ISO is written in ASCII digits
    assert iso_month("2026-11") == (2026, 11) and iso_month("2026-13") is None
    assert iso_month("0000-01") is None
    assert frontmatter_day("2026-11-24T09:00") == date(2026, 11, 24)
    assert frontmatter_day(datetime(2026, 11, 24, 23, tzinfo=UTC)) == date(2026, 11, 24)
    assert frontmatter_day("soon") is None and frontmatter_day(20261124) is None
