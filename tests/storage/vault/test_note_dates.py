"""Hand-written frontmatter dates: one outside the dates kept (1970-01-01 to 9999-12-31,
as written and in UTC: the range reminders keep too), or one that some time zone cannot
show, is an "invalid date": read as absent, never raised."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from storage.index.indexed_note import updated_at
from storage.text.dates import frontmatter_day
from storage.text.dates import frontmatter_time as parse_timestamp
from storage.vault.notefile import NoteDates, entry_from_bytes, note_dates, timestamp_problem


@pytest.mark.parametrize(
    "value",
    [
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),  # before year 1 in UTC
        datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5))),  # after 9999
        datetime(9999, 12, 31, 23, 0, tzinfo=UTC),  # no zone east of UTC could show it
        "1969-07-20T20:17:00",  # a local time, as YAML reads one without a zone
        date(1, 1, 1),
        "0001-01-01T00:00:00+14:00",
        "1970-01-01T05:00:00+14:00",  # 1969 in UTC: a reminder refuses it too
        "tomorrow-ish",
    ],
)
def test_an_invalid_date_reads_as_absent(value: object) -> None:
    assert parse_timestamp(value) is None
    assert "invalid date" in (timestamp_problem({"updated": value}) or "")


@pytest.mark.parametrize(
    ("value", "utc"),
    [
        ("2026-11-20T09:00:00+01:00", datetime(2026, 11, 20, 8, 0, tzinfo=UTC)),
        (date(1970, 1, 1), datetime(1970, 1, 1, tzinfo=UTC)),
        ("9999-12-01T00:00:00", datetime(9999, 12, 1, tzinfo=UTC)),
        # The last day kept, which notes refused a day early while reminders kept it.
        (date(9999, 12, 31), datetime(9999, 12, 31, tzinfo=UTC)),
        ("9999-12-31T09:00:00Z", datetime(9999, 12, 31, 9, tzinfo=UTC)),
    ],
)
def test_a_good_date_is_read_in_utc(value: object, utc: datetime) -> None:
    assert parse_timestamp(value) == utc
    assert timestamp_problem({"created": value, "updated": value}) is None


def test_a_note_with_an_impossible_updated_is_indexed_by_its_other_dates() -> None:
    text = "---\ncreated: 2026-01-02\nupdated: 0001-01-01T00:00:00+14:00\n---\nbody\n"
    entry = entry_from_bytes("ideas/old.md", text.encode())
    assert updated_at(entry) == datetime(2026, 1, 2, tzinfo=UTC)
    assert "updated" in (timestamp_problem(entry.fields) or "")
    assert timestamp_problem({}) is None


def test_a_notes_dates_are_read_in_its_own_zone_at_once() -> None:
    fields = {
        "created": "2026-07-01T10:00:00",
        "updated": "0001-01-01T00:00:00+14:00",
        "due": "2026-07-03 (soft)",
        "timezone": "Europe/Berlin",
    }
    assert note_dates(fields) == NoteDates(
        created=datetime(2026, 7, 1, 8, 0, tzinfo=UTC), updated=None, due=date(2026, 7, 3)
    )


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-20T09:00:00+01:00",
        "2026-11-20T09:00:00",  # wall time in the note's zone
        date(2026, 11, 20),
        datetime(9999, 12, 31, 23, 0, tzinfo=UTC),  # not shown everywhere: absent
        "0001-01-01T00:00:00+14:00",  # cannot even be put in UTC: absent
        "2026-11-24 (soft)",  # a due day, not a time
        "tomorrow-ish",
        None,
    ],
)
def test_a_notes_dates_read_together_are_each_read_alone(value: object) -> None:
    """note_dates reads created, updated and due in one call; each is what its own
    reader makes of it."""
    fields = {"created": value, "updated": value, "due": value, "timezone": "Asia/Tokyo"}
    zone = ZoneInfo("Asia/Tokyo")
    assert note_dates(fields) == NoteDates(
        parse_timestamp(value, zone), parse_timestamp(value, zone), frontmatter_day(value)
    )
