"""Time in a question about the past: "what did I capture yesterday?", "was hat Sarah
letzte Woche gesagt?", "qu'ai-je noté en mars ?" become a span of days, so a search
filters on when notes were filed instead of looking for the words "yesterday", "last"
and "week". Reminders read the future (storage.text.dates.when); a question reads the past, so
this is its own small reader over the same word tables (storage.text.dates.words).

What a question says, and the days it means (both ends included, in the person's zone;
"today" is the person's day; an end after today is today):

| the question says                                                    | span                  |
| -------------------------------------------------------------------- | --------------------- |
| today, heute, aujourd'hui, this morning, ce matin                    | today                 |
| yesterday, gestern, hier (not in German), last night, hier soir      | yesterday             |
| day before yesterday, vorgestern, avant-hier                         | that day              |
| this/last week, diese/letzte/vorige Woche, cette semaine, la semaine | Monday to Sunday      |
| dernière; this/last month, diesen/letzten Monat, ce mois-ci, le mois | the calendar month    |
| dernier; this/last year, letztes Jahr, l'année dernière              | the calendar year     |
| in March, im März, en mars (2025), last March                        | the latest March that |
|                                                                      | is not in the future  |
| in 2025, im Jahr 2025, en 2025; 2026-11; 2026-11-03                  | that year, month, day |
| on 3 November, am 3. November, le 3 novembre                         | the latest such day   |
| (on) Tuesday, am Dienstag, mardi (dernier), last Tuesday             | the latest Tuesday    |
|                                                                      | before today          |
| 3 days ago, vor 3 Tagen, il y a 3 jours (weeks, months, years: the   | that day (week, month |
| week, month or year that was)                                        | or year)              |
| in the last 7 days, in den letzten 7 Tagen, ces 7 derniers jours     | those days to today   |
| since / seit / depuis <any of these>                                 | its first day to today|
| before / vor / avant <one of these>; after / nach / après <one>      | open on one side      |

Not dates: "before the offsite", "after the retro" (a note's title is not a date), a
month name without "in"/a year/"last" ("I may", "March of the penguins"), a year
without a preposition ("version 2025"), German "hier" (here), and any question about
what is due or planned ("what's due today?": a deadline, not when a note was filed).
The first date phrase counts; "between X and Y" is not read. Weeks start on Monday.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from storage.text.dates import words as w
from storage.text.dates.days import month_days

__all__ = ["Span", "question_span"]


@dataclass(frozen=True, slots=True)
class Span:
    """Days a question is about (`after`..`before`, both included; None: open), the
    words that said so, and the question without them."""

    after: date | None
    before: date | None
    matched: str
    rest: str


def _alt(words: object) -> str:
    return f"(?:{w.alternation(words)})"  # type: ignore[arg-type]


_UNIT_OF = {k: v for k, v in w.UNITS.items() if v in ("day", "week", "month", "year")}
_UNIT_OF.pop("an", None)  # French "an" is also English "an"; "ans" stays
_NUMBER_OF = {k: v for k, v in w.NUMBERS.items() if k not in ("other", "zweite", "zweiten")}
_N = rf"(?:\d{{1,3}}|{_alt(_NUMBER_OF)})"
_UNIT = _alt(_UNIT_OF)
_MONTH = _alt(w.MONTH_NUMBERS)
_WEEKDAY = _alt(w.WEEKDAYS)
_YEAR = r"(?:19[7-9]\d|20\d\d)"
_LAST = r"(?:last|past|previous|letzte[nrsm]?|vorige[nrsm]?|vergangene[nrsm]?)"
_THIS = r"(?:this|current|diese[nrsm]?|dieses|cette|ce)"
_FR_LAST = r"(?:derni[eè]re?s?|pass[ée]e?s?)"
_PERIOD = {
    **dict.fromkeys(("week", "woche", "semaine"), "week"),
    **dict.fromkeys(("month", "monat", "mois", "mois-ci"), "month"),
    **dict.fromkeys(("year", "jahr", "année", "annee", "an", "année-ci"), "year"),
}
_DAYS = {
    **dict.fromkeys(("today", "heute", "aujourd'hui", "aujourd hui", "this morning"), 0),
    **dict.fromkeys(("this afternoon", "tonight", "ce matin", "heute morgen", "heute früh"), 0),
    **dict.fromkeys(("yesterday", "gestern", "hier", "last night", "gestern abend"), 1),
    **dict.fromkeys(("yesterday morning", "yesterday evening", "gestern morgen"), 1),
    **dict.fromkeys(("hier soir", "hier matin", "hier après-midi"), 1),
    **dict.fromkeys(("the day before yesterday", "day before yesterday"), 2),
    **dict.fromkeys(("vorgestern", "avant-hier", "avant hier"), 2),
}

# One date phrase; the named group that matched says which kind.
_CORE = (
    rf"(?P<iso_day>(?<![\d-])(?P<iy>{_YEAR})-(?P<im>\d{{2}})-(?P<id>\d{{2}})(?![\d-]))"
    rf"|(?P<iso_month>(?<![\d-])(?P<my>{_YEAR})-(?P<mm>\d{{2}})(?![\d-]))"
    rf"|(?P<ago>(?P<an>{_N})\s+(?P<au>{_UNIT})\s+ago"
    rf"|vor\s+(?P<dn>{_N})\s+(?P<du>{_UNIT})"
    rf"|il\s+y\s+a\s+(?P<fn>{_N})\s+(?P<fu>{_UNIT}))"
    rf"|(?P<recent>(?:the\s+)?(?:last|past)\s+(?P<ln>{_N})\s+(?P<lu>{_UNIT})"
    rf"|(?:den\s+)?letzten\s+(?P<gn>{_N})\s+(?P<gu>{_UNIT})"
    rf"|(?:ces|les|des)\s+(?P<rn>{_N})\s+{_FR_LAST}\s+(?P<ru>{_UNIT}))"
    rf"|(?P<day>{_alt(_DAYS)})"
    rf"|(?P<last_period>{_LAST}\s+(?P<lp>week|woche|month|monat|year|jahr)"
    rf"|(?:la|le|l')\s*(?P<fp>semaine|mois|année|annee|an)\s+{_FR_LAST})"
    rf"|(?P<this_period>{_THIS}\s+(?P<tp>week|woche|semaine|month|monat|mois-ci|mois"
    rf"|year|jahr|année-ci|année|annee))"
    rf"|(?P<day_month>(?P<dd>\d{{1,2}})(?:\.|st|nd|rd|th|er)?\s+(?:of\s+)?(?P<dm>{_MONTH})"
    rf"(?:\s+(?P<dy>{_YEAR}))?"
    rf"|(?P<md>{_MONTH})\.?\s+(?P<mdd>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(?P<mdy>{_YEAR}))?)"
    rf"|(?P<month>(?P<ml>{_LAST}\s+)?(?P<mn>{_MONTH})(?:\s+(?P<mny>{_YEAR}))?)"
    rf"|(?P<weekday>(?P<wl>{_LAST}\s+)?(?P<wd>{_WEEKDAY})(?P<wfr>\s+{_FR_LAST})?)"
    rf"|(?P<year>(?:l'an\s+|the\s+year\s+)?(?P<yy>{_YEAR}))"
)
_SINCE = r"since|seit|depuis|ab|à\s+partir\s+d[eu]"
_BEFORE = r"before|vor(?:\s+dem)?|avant(?:\s+le)?"
_UNTIL = r"until|till|up\s+to|bis(?:\s+zum)?|jusqu'(?:au|à)"
_AFTER = r"after|nach(?:\s+dem)?|après(?:\s+le)?|apres(?:\s+le)?"
_PLAIN = (
    r"in(?:\s+the)?|from|aus|in\s+der|in\s+dem|im(?:\s+jahr)?|en|on|am|le|during|over\s+the|within"
    r"|während|pendant|au\s+cours\s+(?:de|des|du)|au\s+mois\s+de|dans|im\s+laufe\s+der"
)
_PHRASE = (
    rf"(?<![\w':])(?:(?:(?P<since>{_SINCE})|(?P<before>{_BEFORE})|(?P<after>{_AFTER})"
    rf"|(?P<until>{_UNTIL})|(?P<plain>{_PLAIN}))\s+)?(?:{_CORE})(?![\w'])"
)


@functools.cache
def _phrase() -> re.Pattern[str]:
    """`_PHRASE` compiled at its first use: compiling it costs a start 75 ms."""
    return re.compile(_PHRASE, re.IGNORECASE)


# What makes a past date no question about when notes were filed.
_PLANS = re.compile(
    r"\b(?:due|deadline|remind\w*|reminders?|scheduled|upcoming|fällig\w*"
    r"|erinner\w*|geplant|échéance|echeance|rappel\w*|prévu\w*)\b",
    re.IGNORECASE,
)
# German words around "hier" ("was habe ich hier notiert?"): there it means here.
_GERMAN = re.compile(r"\b(?:ich|habe|hab|ist|was|wir|und|der|die|das|mir|mich|notiert)\b", re.I)
_NAMED_DAY = re.compile(rf"(?:{'|'.join(w.NAMED_DAYS)})\s+$", re.IGNORECASE)
_NOUN_NEXT = re.compile(r"\s*[^\W\d_]")  # a word follows: the weekday names a thing
_OF = re.compile(r"\s+(?:of|on|de)\s", re.IGNORECASE)
_LEFTOVER = re.compile(r"\s+([,;:.!?])")


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_OF[word.lower()]


def _week_of(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _months_back(today: date, months: int) -> tuple[int, int]:
    index = today.year * 12 + today.month - 1 - months
    return index // 12, index % 12 + 1


def _unit_span(unit: str, count: int, today: date) -> tuple[date, date]:
    """The day, week, month or year `count` of them ago."""
    if unit == "day":
        day = today - timedelta(days=count)
        return day, day
    if unit == "week":
        return _week_of(today - timedelta(weeks=count))
    if unit == "month":
        return month_days(*_months_back(today, count))
    return date(today.year - count, 1, 1), date(today.year - count, 12, 31)


def _recent(unit: str, count: int, today: date) -> tuple[date, date]:
    """The last `count` days (weeks, months, years) up to today."""
    if unit == "day":
        return today - timedelta(days=count - 1), today
    if unit == "week":
        return today - timedelta(weeks=count) + timedelta(days=1), today
    year, month = _months_back(today, count if unit == "month" else 12 * count)
    start = date(year, month, min(today.day, month_days(year, month)[1].day))
    return start + timedelta(days=1), today


def _latest_day(month: int, day: int, year: str | None, today: date) -> date:
    if year:
        return date(int(year), month, day)
    this_year = date(today.year, month, day) if (month, day) != (2, 29) else None
    if this_year and this_year <= today:
        return this_year
    return date(today.year - 1, month, day)


def _prefixed(m: re.Match[str]) -> bool:
    """A preposition that makes a month or a year a time: "in", "since", "before"...
    ("on March", "am 2025" are none)."""
    plain = (m.group("plain") or "").lower()
    if plain in ("on", "am", "le"):
        return False
    return bool(plain) or any(m.group(name) for name in ("since", "before", "until", "after"))


def _days(m: re.Match[str], text: str, today: date) -> tuple[date, date] | None:
    """The days the core phrase of `m` names; None when it names none here."""
    g = m.group
    if g("iso_day"):
        day = date(int(g("iy")), int(g("im")), int(g("id")))
        return day, day
    if g("iso_month"):
        return month_days(int(g("my")), int(g("mm")))
    if g("ago"):
        number, unit = (
            (g("an"), g("au"))
            if g("an")
            else (g("dn"), g("du"))
            if g("dn")
            else (
                g("fn"),
                g("fu"),
            )
        )
        return _unit_span(_UNIT_OF[unit.lower()], _number(number), today)
    if g("recent"):
        number = g("ln") or g("gn") or g("rn")
        unit = g("lu") or g("gu") or g("ru")
        return _recent(_UNIT_OF[unit.lower()], max(1, _number(number)), today)
    if g("day"):
        said = " ".join(g("day").lower().replace("\u2019", "'").split())
        if said == "hier" and _GERMAN.search(text):
            return None
        day = today - timedelta(days=_DAYS[said])
        return day, day
    if g("last_period"):
        return _unit_span(_PERIOD[(g("lp") or g("fp")).lower()], 1, today)
    if g("this_period"):
        return _unit_span(_PERIOD[g("tp").lower()], 0, today)
    if g("day_month"):
        month = w.MONTH_NUMBERS[(g("dm") or g("md")).lower()]
        day = _latest_day(month, int(g("dd") or g("mdd")), g("dy") or g("mdy"), today)
        return day, day
    if g("month"):
        month, year = w.MONTH_NUMBERS[g("mn").lower()], g("mny")
        if not (year or g("ml") or _prefixed(m)):
            return None  # "I may", "the march"
        if g("mn").lower() in w.WORDLIKE_MONTHS and _OF.match(text, m.end()):
            return None  # "in March of the penguins"
        if year:
            return month_days(int(year), month)
        latest = (
            today.year
            if month < today.month or (month == today.month and not g("ml"))
            else (today.year - 1)
        )
        return month_days(latest, month)
    if g("weekday"):
        if _NAMED_DAY.search(text, 0, m.start("wd")):
            return None  # "Black Friday"
        said_when = g("wl") or g("wfr") or g("plain") or _prefixed(m)
        if not said_when and _NOUN_NEXT.match(text, m.end()):
            return None  # "the Monday standup", "Saturday market notes"
        back = (today.weekday() - w.WEEKDAYS[g("wd").lower()]) % 7 or 7
        day = today - timedelta(days=back)
        return day, day
    if g("year"):
        if not _prefixed(m):
            return None  # "version 2025", "the 2025 budget"
        year = int(g("yy"))
        return date(year, 1, 1), date(year, 12, 31)
    return None


def question_span(text: str, zone: ZoneInfo, now: datetime) -> Span | None:
    """The days `text` (a question about notes) is about, read in `zone` at `now`; None
    when it names none (see the module docstring for what is read)."""
    text = text.replace("\u2019", "'")  # same length: positions fit the original
    if _PLANS.search(text):
        return None
    today = now.astimezone(zone).date()
    for m in _phrase().finditer(text):
        try:
            days = _days(m, text, today)
        except (ValueError, OverflowError):  # 2026-02-30, the 31st of a short month
            days = None
        if days is None:
            continue
        first, last = days
        after: date | None = first
        before: date | None = last
        if m.group("since"):
            before = today
        elif m.group("before"):
            after, before = None, first - timedelta(days=1)
        elif m.group("until"):
            after = None
        elif m.group("after"):
            after, before = last + timedelta(days=1), None
        if before is not None and before > today and (after is None or after <= today):
            before = today
        rest = _LEFTOVER.sub(r"\1", " ".join(f"{text[: m.start()]} {text[m.end() :]}".split()))
        return Span(after, before, m.group().strip(), rest.strip())
    return None
