"""Repeating reminders: "every Monday", "jeden Montag", "tous les lundis", "daily",
"alle 2 Wochen" read into one normalised rule, and the rule's next instant.

Normalised rules (what `Rule.__str__` writes and `read_rule` reads back): "daily",
"weekdays", "weekly", "monthly", "yearly", "every 3 days", "every 2 weeks",
"every 6 months", "every 2 years", "every monday", "every monday and thursday",
"every 2 weeks on monday". An iCalendar RRULE a model may write
("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH") is read too.

A rule whose steps are further apart than a century (an RRULE's INTERVAL can say
anything) is refused with OutOfRange; a series whose next time would fall after
9999-12-31 ends there.

Month ends: a monthly rule keeps the anchor's day of the month and clamps it to
shorter months without drifting: from 31 January it goes 28 (29) February, 31 March,
30 April. A yearly rule from 29 February falls on 28 February in other years.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from storage.text.dates.bounds import LONGEST_REPEAT_YEARS, OutOfRange, bounded, bounded_day
from storage.text.dates.words import (
    NUMBERS,
    SHORT_WEEKDAYS,
    WEEKDAY_NAMES,
    WEEKDAYS,
    alternation,
)

UNITS = ("day", "week", "month", "year")
ADVERBS = {"day": "daily", "week": "weekly", "month": "monthly", "year": "yearly"}
WORKDAYS = frozenset(range(5))
# The most units a step may span: LONGEST_REPEAT_YEARS in each unit.
LONGEST_STEP = {
    "day": LONGEST_REPEAT_YEARS * 36525 // 100,
    "week": LONGEST_REPEAT_YEARS * 36525 // 700,
    "month": LONGEST_REPEAT_YEARS * 12,
    "year": LONGEST_REPEAT_YEARS,
}


@dataclass(frozen=True, slots=True)
class Rule:
    """Every `every` units; for weeks, on `weekdays` (Monday 0), else the anchor's day."""

    unit: str
    every: int = 1
    weekdays: frozenset[int] = frozenset()

    def __str__(self) -> str:
        days = " and ".join(WEEKDAY_NAMES[d] for d in sorted(self.weekdays))
        if len(self.weekdays) > 2:
            *first, last = (WEEKDAY_NAMES[d] for d in sorted(self.weekdays))
            days = f"{', '.join(first)} and {last}"
        if self.unit == "week" and self.every == 1 and self.weekdays == frozenset(range(7)):
            return "daily"
        if self.unit == "week" and self.every == 1 and self.weekdays == WORKDAYS:
            return "weekdays"
        if self.unit == "week" and self.weekdays:
            return f"every {days}" if self.every == 1 else f"every {self.every} weeks on {days}"
        return ADVERBS[self.unit] if self.every == 1 else f"every {self.every} {self.unit}s"


@dataclass(frozen=True, slots=True)
class RepeatFound:
    """A rule found in a text, where, and the part of the day it named ("every morning")."""

    rule: Rule
    start: int
    end: int
    part: str | None = None
    weak: bool = False  # an adjective-like word ("weekly", "hebdomadaire"): needs company


def _fixed() -> dict[str, tuple[Rule, str | None]]:
    day, week, month, year = (Rule(unit) for unit in UNITS)
    table: dict[str, tuple[Rule, str | None]] = {}
    groups: list[tuple[Rule, str | None, str]] = [
        (day, None, "every day|every single day|each day|once a day|täglich|taeglich|jeden tag"),
        (day, None, "tous les jours|chaque jour|quotidiennement|jour après jour"),
        (day, "morning", "every morning|jeden morgen|tous les matins|chaque matin"),
        (day, "noon", "jeden mittag|tous les midis|chaque midi"),
        (day, "afternoon", "every afternoon|jeden nachmittag|tous les après-midi"),
        (day, "evening", "every evening|jeden abend|tous les soirs|chaque soir"),
        (day, "night", "every night|nightly|jede nacht|toutes les nuits|chaque nuit"),
        (Rule("week", 1, WORKDAYS), None, "every weekday|every workday|every business day"),
        (Rule("week", 1, WORKDAYS), None, "on weekdays|werktags|an werktagen|jeden werktag"),
        (Rule("week", 1, WORKDAYS), None, "montags bis freitags|von montag bis freitag"),
        (Rule("week", 1, WORKDAYS), None, "en semaine|tous les jours ouvrés|du lundi au vendredi"),
        (Rule("week", 1, WORKDAYS), None, "chaque jour ouvré|tous les jours de semaine"),
        (week, None, "every week|each week|once a week|jede woche|einmal pro woche"),
        (week, None, "einmal die woche|toutes les semaines|chaque semaine|une fois par semaine"),
        (week, None, "hebdomadairement|wöchentlich|woechentlich"),
        (Rule("week", 2), None, "every fortnight|fortnightly|biweekly|vierzehntägig"),
        (Rule("week", 2), None, "zweiwöchentlich|alle vierzehn tage|une semaine sur deux"),
        (Rule("week", 2), None, "tous les quinze jours"),
        (month, None, "every month|each month|once a month|jeden monat|einmal im monat"),
        (month, None, "monatlich|tous les mois|chaque mois|mensuellement|une fois par mois"),
        (year, None, "every year|each year|once a year|annually|jedes jahr|einmal im jahr"),
        (year, None, "jährlich|jaehrlich|tous les ans|chaque année|chaque annee"),
        (year, None, "annuellement|une fois par an"),
    ]
    for rule, part, words in groups:
        table.update(dict.fromkeys(words.split("|"), (rule, part)))
    return table


FIXED = _fixed()
# English adjectives ("weekly review", "daily standup") and French ones ("réunion
# hebdomadaire") describe a thing more often than they ask for a reminder.
WEAK = {
    **dict.fromkeys(("daily", "quotidien", "quotidienne"), Rule("day")),
    **dict.fromkeys(("weekly", "hebdomadaire"), Rule("week")),
    **dict.fromkeys(("monthly", "mensuel", "mensuelle"), Rule("month")),
    **dict.fromkeys(("yearly", "annuel", "annuelle"), Rule("year")),
}
_UNIT_WORDS = {
    **dict.fromkeys(("day", "days", "tag", "tage", "jour", "jours"), "day"),
    **dict.fromkeys(("week", "weeks", "woche", "wochen", "semaine", "semaines"), "week"),
    **dict.fromkeys(("month", "months", "monat", "monate", "mois"), "month"),
    **dict.fromkeys(("year", "years", "jahr", "jahre", "an", "ans", "année", "années"), "year"),
}
_NUMBER = rf"(?P<n>\d{{1,2}}|{alternation(NUMBERS)})"
_DAY = rf"(?:{alternation([*WEEKDAYS, *SHORT_WEEKDAYS])})"
_AND = r"\s*(?:,|and|und|et|&)\s*(?:every\s+|jeden\s+|chaque\s+|les\s+)?"
# Weekdays in the plural repeat: "on Mondays", "montags", "tous les lundis".
_PLURALS = {
    "on": [f"{name}s" for name in WEEKDAY_NAMES],
    "immer": "montags dienstags mittwochs donnerstags freitags samstags sonnabends sonntags",
    "les": "lundis mardis mercredis jeudis vendredis samedis dimanches",
}
_PLURAL = {
    k: f"(?:{alternation(v.split() if isinstance(v, str) else v)})" for k, v in _PLURALS.items()
}
_PATTERNS = {
    "fixed": rf"(?<!\w)(?:{alternation(FIXED)})(?!\w)",
    "weak": rf"(?<!\w)(?:{alternation(WEAK)})(?!\w)",
    "every_n": rf"\b(?:every|alle|tous\s+les|toutes\s+les)\s+{_NUMBER}\s+"
    rf"(?P<unit>{alternation(_UNIT_WORDS)})\b(?:\s+on\s+(?P<on>{_DAY}(?:{_AND}{_DAY})*))?",
    "every_second": rf"\b(?:jede[ns]?\s+zweite[ns]?|every\s+other)\s+"
    rf"(?P<unit>{alternation(_UNIT_WORDS)}|{_DAY})\b",
    "days": rf"\b(?:every|each|jeden|chaque)\s+(?P<days>{_DAY}(?:{_AND}{_DAY})*)\b",
    "on_days": rf"\bon\s+(?P<days>{_PLURAL['on']}(?:{_AND}{_PLURAL['on']})*)\b",
    "de_days": rf"\b(?:immer\s+)?(?P<days>{_PLURAL['immer']}(?:{_AND}{_PLURAL['immer']})*)\b",
    "fr_days": rf"\b(?:tous\s+)?les\s+(?P<days>{_PLURAL['les']}(?:{_AND}{_PLURAL['les']})*)\b",
}
# One scan for all; the inner groups are named again only in each pattern of its own.
_SCAN = re.compile(
    "|".join(f"(?P<{k}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', v)})" for k, v in _PATTERNS.items()),
    re.IGNORECASE,
)
_SUB = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _PATTERNS.items()}
# After an English adjective, these words still read as an adverb ("remind me weekly to").
_ADVERB_FOLLOWERS = frozenset({"to", "at", "on", "from", "starting", "and", "until", "by", "for"})
_RRULE = re.compile(r"(?:RRULE:)?FREQ=(?P<freq>DAILY|WEEKLY|MONTHLY|YEARLY)(?P<rest>(?:;[^;]*)*)")
_RRULE_DAYS = {"MO": 0, "TU": 1, "WE": 2, "TH": 3, "FR": 4, "SA": 5, "SU": 6}


def _weekdays(words: str) -> frozenset[int]:
    table = {**WEEKDAYS, **SHORT_WEEKDAYS}
    names = re.findall(r"[^\W\d_]+", words.lower())
    return frozenset(table.get(name, table.get(name[:-1], -1)) for name in names) - frozenset({-1})


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word.lower(), 0)


def _rule(kind: str, match: re.Match[str]) -> tuple[Rule, str | None] | None:
    text = match.group(0).lower()
    if kind == "fixed":
        return FIXED[text]
    if kind == "weak":
        return WEAK[text], None
    parts = _SUB[kind].fullmatch(match.group(0))
    assert parts is not None  # the same pattern matched this text inside _SCAN
    if kind == "every_n":
        every = _count(parts["n"])
        days = _weekdays(parts["on"] or "")
        unit = _UNIT_WORDS[parts["unit"].lower()]
        if every < 1 or (days and unit != "week"):
            return None
        return Rule(unit, every, days), None
    if kind == "every_second":
        days = _weekdays(parts["unit"])
        return (
            Rule("week", 2, days) if days else Rule(_UNIT_WORDS[parts["unit"].lower()], 2)
        ), None
    return Rule("week", 1, _weekdays(parts["days"])), None


def find_repeat(text: str) -> RepeatFound | None:
    """The first repeating rule in `text`, with its span."""
    for match in _SCAN.finditer(text):
        kind = match.lastgroup
        if kind is None or (found := _rule(kind, match)) is None:
            continue
        rule, part = found
        weak = False
        if kind == "weak":
            after = re.match(r"\s*([^\W\d]+)", text[match.end() :])
            weak = after is not None and after.group(1).lower() not in _ADVERB_FOLLOWERS
        return RepeatFound(rule, match.start(), match.end(), part, weak)
    return None


def _within_a_century(rule: Rule, text: str) -> Rule:
    if rule.every > LONGEST_STEP[rule.unit]:
        raise OutOfRange(
            f"{text.strip()!r} repeats further apart than {LONGEST_REPEAT_YEARS} years "
            f"(at most every {LONGEST_STEP[rule.unit]} {rule.unit}s)"
        )
    return rule


def read_rule(text: str) -> Rule | None:
    """A rule from a normalised string, free text in EN/DE/FR, or an RRULE; None when
    `text` states none, OutOfRange when its steps are further apart than a century."""
    rule = _read_rule(text)
    return None if rule is None else _within_a_century(rule, text)


def _read_rule(text: str) -> Rule | None:
    if rrule := _RRULE.search(text.upper()):
        fields = dict(f.split("=", 1) for f in rrule["rest"].strip(";").split(";") if "=" in f)
        unit = {"DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}
        every = int(fields.get("INTERVAL", "1")) if fields.get("INTERVAL", "1").isdigit() else 0
        byday = fields.get("BYDAY", "")
        days = frozenset(_RRULE_DAYS[d[-2:]] for d in byday.split(",") if d[-2:] in _RRULE_DAYS)
        if every < 1:
            return None
        if rrule["freq"] == "DAILY" or not days:
            return Rule(unit[rrule["freq"]], every)
        return Rule("week", every, days) if rrule["freq"] == "WEEKLY" else None
    if text.strip().lower() == "weekdays":  # the normalised name, too bare for free text
        return Rule("week", 1, WORKDAYS)
    found = find_repeat(text)
    return found.rule if found else None


def parse_repeat(text: str) -> str | None:
    """The normalised rule that `text` states ("every Monday" -> "every monday",
    "jeden Montag und Donnerstag" -> "every monday and thursday", "täglich" -> "daily",
    "toutes les 2 semaines" -> "every 2 weeks"), or None when it states none;
    OutOfRange when its steps are further apart than a century."""
    rule = read_rule(text)
    return str(rule) if rule else None


def _wall(day: date, anchor: datetime) -> datetime:
    """`day` at the anchor's wall-clock time in its zone; a time that a DST change
    skips (02:30 on the spring-forward night) moves forward by the gap."""
    naive = datetime.combine(day, anchor.time())
    if anchor.tzinfo is None:
        return naive
    return naive.replace(tzinfo=anchor.tzinfo).astimezone(UTC).astimezone(anchor.tzinfo)


def _plus_months(start: date, months: int) -> date:
    years, month = divmod(start.month - 1 + months, 12)
    year = start.year + years
    return date(year, month + 1, min(start.day, calendar.monthrange(year, month + 1)[1]))


def next_occurrence(repeat: str, after: datetime, anchor: datetime) -> datetime | None:
    """The first instant of the rule strictly after `after`, keeping `anchor`'s local time
    of day (and weekday / day of month / date for weekly/monthly/yearly), in anchor's
    tzinfo. DST-safe: a 09:00 in Europe/Berlin stays 09:00 across the change. The series
    starts at anchor's day. None for a rule it does not know, and when the next time
    would fall after 9999-12-31 (the series ends); OutOfRange for a rule whose steps
    are further apart than a century."""
    rule = read_rule(repeat)
    if rule is None:
        return None
    try:
        moment = _next(rule, after, anchor)
        if moment is not None:
            bounded_day(moment.date())
            if moment.tzinfo is not None:
                bounded(moment, moment.tzinfo)
    except (OverflowError, ValueError):  # past LAST_DAY (OutOfRange is a ValueError)
        return None
    return moment


def _next(rule: Rule, after: datetime, anchor: datetime) -> datetime | None:
    if anchor.tzinfo is not None and after.tzinfo is None:
        after = after.replace(tzinfo=anchor.tzinfo)
    local = after.astimezone(anchor.tzinfo) if anchor.tzinfo else after
    start = anchor.date()
    first = max(start, local.date())
    if rule.unit == "day":
        step = (first - start).days // rule.every
        while (moment := _wall(start + timedelta(days=step * rule.every), anchor)) <= after:
            step += 1
        return moment
    if rule.unit == "week":
        days = rule.weekdays or frozenset({start.weekday()})
        monday = start - timedelta(days=start.weekday())
        for offset in range(7 * rule.every + 8):
            day = first + timedelta(days=offset)
            in_cycle = ((day - monday).days // 7) % rule.every == 0
            if day.weekday() in days and in_cycle and (moment := _wall(day, anchor)) > after:
                return moment
        return None  # unreachable: a cycle always holds one of `days`
    step = rule.every * (12 if rule.unit == "year" else 1)
    months = (first.year - start.year) * 12 + first.month - start.month
    count = max(0, months // step - 1)
    while (moment := _wall(_plus_months(start, count * step), anchor)) <= after:
        count += 1
    return moment
