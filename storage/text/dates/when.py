"""Dates and times in a person's words become frontmatter: `due`, `remind`, `repeat`.

Pure: no database, no I/O. Everything is read in the person's zone, relative to `now`.
English, German and French are read by the word tables in storage.text.dates.words; dates with
a month name are read by dateparser, which is imported on the first such date.

What a text says, and what it becomes ("today" is the person's day):

| the text says                                          | due        | remind         | repeat |
| ------------------------------------------------------ | ---------- | -------------- | ------ |
| "remind me (to X) <when>", "erinnere mich (an) ...",    | -          | that moment    | -      |
| "rappelle-moi (de) ...", "in 2 hours", "dans 20 min"    |            |                |        |
| "by / until / due / bis (zum) / spätestens / avant (le) | the date   | only if asked  | -      |
| / d'ici / pour le <date>"                              |            | to be reminded |        |
| an event: "dentist on Friday (at 3pm)", "Zahnarzt am   | the date   | the time, when | -      |
| Freitag um 15 Uhr", "ce soir appeler Paul"             |            | one was given  |        |
| "Sarah's birthday is on 4 May", "Geburtstag",          | next 4 May | then, at the   | yearly |
| "anniversaire"                                         |            | default time   |        |
| "every Monday", "täglich", "tous les lundis"           | -          | next time      | rule   |

- A date without a time: `default_time` that day. A time without a date: today if
  still ahead, else tomorrow.
- Parts of the day: morning 09:00 (or `default_time` when that is before noon),
  "Vormittag" 10:00, noon 12:00, afternoon 15:00, evening and "tonight" / "heute
  Abend" / "ce soir" 20:00, night 21:00.
- A bare hour ("at 9", "um 3", "3:30") is 07:00-12:59 for 7-12 and the afternoon for
  1-6 ("at 3" is 15:00); on an explicit "today" whose morning hour has passed, the
  evening one ("today at 9" at 14:00 is 21:00). am/pm, "Uhr" after a part of the day,
  and French "21h" are read as written.
- A weekday is the next one after today ("Monday", said on a Monday, is in a week);
  "this Monday" / "ce lundi" may be today. "next week" is its Monday, "end of the
  month" its last day, "next month" its 1st. A day and month without a year is the
  next such day, today included. "12/1" is 1 December, or 12 January ... read
  month-first only in a zone of the Americas; "1.12." is always day-first.
- Never a past reminder: an explicit time that has passed is dropped; a default time
  or a part of the day that has passed today moves to the next full hour of today (or
  is dropped). An event whose stated time has passed is a memory, not a plan: nothing.
- A deadline's time of day is dropped (`due` is a date). Repeats keep the time of day
  across DST (see storage.text.dates.repeat for month ends).
- No date without a trigger: words that also mean other things ("may", "sat", "a
  second", "March of the penguins", "1/2 cup", "version 2.0", "call 3 people") never
  make a date on their own (see storage.text.dates.pieces for how much each piece is believed).

Known limits: past tense is not read ("I met her on Monday" is due next Monday); a
weekday before a noun ("the Sunday game") is a date; "every first Monday of the
month" is no rule; "next Friday" is the coming Friday even when that is in two days;
other languages are read only by read_when / read_due (through dateparser).

`rest` is the text without the reminder wording and the date phrase, a title for the
note: "remind me to call mom tomorrow at 9" -> "call mom".
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from storage.text.dates.assembly import TRIGGER, When, at, read_text
from storage.text.dates.bounds import bounded, bounded_day, out_of_range
from storage.text.dates.iso import iso_moment
from storage.text.dates.repeat import next_occurrence, parse_repeat

__all__ = ["When", "describe", "find_when", "next_occurrence", "parse_repeat", "prepare"]
__all__ += ["read_due", "read_when"]


def find_when(text: str, *, now: datetime, zone: ZoneInfo, default_time: time = time(9, 0)) -> When:
    """Dates in free text (English, German, French), in the person's `zone`, relative
    to `now`. A text without a date word costs a regex search, nothing more."""
    if not TRIGGER.search(text):
        return When(rest=text.strip())
    return read_text(text, now.astimezone(zone), default_time)


def _local(value: datetime, zone: ZoneInfo) -> datetime:
    if value.tzinfo is None:
        return at(value.date(), value.time(), zone)
    return value.astimezone(zone)


_FALLBACK_LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt"]


def _dateparser(text: str, now: datetime) -> tuple[datetime, bool] | None:
    """dateparser's reading of `text` in more languages, and whether it held a time of
    day: it keeps the base's time when none was written, so two bases tell."""
    import dateparser  # here, not at the top: only texts the tables could not read

    found = []
    for base in (time(0, 0), time(13, 37, 11)):
        settings = {
            "RELATIVE_BASE": datetime.combine(now.date(), base),
            "PREFER_DATES_FROM": "future",
            "RETURN_AS_TIMEZONE_AWARE": False,
        }
        found.append(dateparser.parse(text, languages=_FALLBACK_LANGUAGES, settings=settings))
    first, second = found
    if not isinstance(first, datetime) or not isinstance(second, datetime):
        return None
    return first, first == second


def read_when(
    value: object, *, now: datetime, zone: ZoneInfo, default_time: time = time(9, 0)
) -> datetime | None:
    """Normalise a value a model wrote into `remind` ("2026-11-24 09:00",
    "2026-11-24T09:00:00+01:00", "2026-11-24" -> at default_time, "tomorrow 9am", a
    date/datetime object) into an aware datetime in `zone` (naive times are local to the
    person). None if it is not a time; OutOfRange for one outside 1970-01-01 to
    9999-12-31 (storage.text.dates.bounds). A written-out past moment is returned as it is:
    the caller decides what a reminder in the past means."""
    try:
        moment = _read_when(value, now, zone, default_time)
    except OverflowError as exc:  # "0001-01-01T00:00:00+14:00" has no UTC time
        raise out_of_range(value) from exc
    return None if moment is None else bounded(moment, zone)


def _read_when(value: object, now: datetime, zone: ZoneInfo, default_time: time) -> datetime | None:
    if isinstance(value, datetime):
        return _local(value, zone)
    if isinstance(value, date):
        return at(value, default_time, zone)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if isinstance(iso := iso_moment(text), datetime):
        return _local(iso, zone)
    if iso:
        return at(iso, default_time, zone)
    local_now = now.astimezone(zone)
    if (found := read_text(text, local_now, default_time, asked=True)).remind:
        return found.remind
    if read := _dateparser(text, local_now):
        moment, has_time = read
        return _local(moment, zone) if has_time else at(moment.date(), default_time, zone)
    return None


def read_due(value: object, *, now: datetime, zone: ZoneInfo) -> date | None:
    """Normalise a value a model wrote into `due` ("2026-12-01", "Dec 1", "next friday",
    "2026-12-01T17:00:00Z", date/datetime objects) into a date in the person's `zone`.
    None if it is not a date; OutOfRange for one outside 1970-01-01 to 9999-12-31."""
    try:
        day = _read_due(value, now, zone)
    except OverflowError as exc:
        raise out_of_range(value) from exc
    return None if day is None else bounded_day(day)


def _read_due(value: object, now: datetime, zone: ZoneInfo) -> date | None:
    if isinstance(value, datetime):
        return _local(value, zone).date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if iso := iso_moment(text):
        return _local(iso, zone).date() if isinstance(iso, datetime) else iso
    local_now = now.astimezone(zone)
    found = read_text(text, local_now, time(9))
    if found.due or found.remind:
        return found.due or (found.remind.date() if found.remind else None)
    read = _dateparser(text, local_now)
    return read[0].date() if read else None


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def describe(moment: datetime, now: datetime) -> str:
    """A moment for a reply, from the person's side: "today at 15:30", "tomorrow at
    09:00", "Mon 30 Nov at 09:00" (with the year when it is not this one)."""
    local_now = now.astimezone(moment.tzinfo) if moment.tzinfo and now.tzinfo else now
    days = (moment.date() - local_now.date()).days
    clock = f"{moment:%H:%M}"
    named = {0: "today", 1: "tomorrow", -1: "yesterday"}
    if days in named:
        return f"{named[days]} at {clock}"
    year = f" {moment.year}" if moment.year != local_now.year else ""
    when = f"{_DAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]}{year}"
    return f"{when} at {clock}"


def prepare() -> None:
    """Load dateparser and its English, German and French data now (about 0.2 s), so
    the first person to write a date does not wait for it (call it at start-up)."""
    for text in ("4 May", "4. Mai", "4 mai"):
        find_when(f"on {text}", now=datetime.now(UTC), zone=ZoneInfo("UTC"))
