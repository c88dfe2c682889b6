"""The pieces of a date phrase in a text: a day ("tomorrow", "Friday", "4 May",
"1.12."), a time of day ("at 9", "9:30", "15 Uhr", "21h"), a part of the day
("tonight", "demain matin"), a span from now ("in 2 hours"). storage.text.dates.when puts them
together.

Each piece carries how far it can be believed alone (`level`): a month name with a
day, a weekday or "tomorrow" can; a bare "21h", "14:30" or "in the morning" only next
to another piece or when the person asked to be reminded; "sat" only next to another
piece. That is what keeps "I may try oolong", "sat on it", "1/2 cup", "version 2.0"
and "call 3 people" free of dates.

dateparser reads the dates written with a month name ("4 May", "1er déc.", "4.
Mai 2027"); it is imported on the first such date, not before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from functools import lru_cache

from storage.text.dates import words as w
from storage.text.dates.days import month_days

LEVEL_ALONE, LEVEL_ASKED, LEVEL_COMPANY = 2, 1, 0


@dataclass(frozen=True, slots=True)
class Piece:
    kind: str  # "day" | "time" | "part" | "delta"
    start: int
    end: int
    level: int = LEVEL_ALONE
    day: date | None = None
    rank: int = 0  # for days: 3 a written date, 2 a weekday or period, 1 a relative word
    clock: time | None = None
    ambiguous: bool = False  # "at 9": 9:00 or 21:00
    part: str | None = None
    today: bool = False  # "tonight", "ce soir": the part of today
    delta: timedelta | None = None
    due: bool = False  # "within 2 days", "d'ici 2 jours": a deadline


def _words(table: object) -> str:
    return f"(?:{w.alternation(table)})"  # type: ignore[arg-type]


_I = re.IGNORECASE
_MONTH = _words(w.MONTH_NUMBERS)
_WEEKDAY = _words([*w.WEEKDAYS, *w.SHORT_WEEKDAYS])
_PART = _words(w.PARTS)
_NUMBER = _words(w.NUMBERS)
_DUE = re.compile(rf"(?:^|(?<=[\s,(]))(?:{w.DUE_BEFORE})\s*$", _I)
_PREP = re.compile(rf"(?:^|(?<=[\s,(]))(?:{w.PREP_BEFORE})\s*$", _I)
_DATE_PREP = re.compile(
    rf"(?:^|(?<=[\s,(]))(?:{w.DUE_BEFORE}|on|am|zum|vom|ab|le|from|starting)\s*$", _I
)
_TIME_PREP = re.compile(
    r"(?:^|(?<=[\s,(]))(?:at|@|um|gegen|à|a|vers|dès|avant|après|jusqu'à|pour|by|bis|ab|from|until)\s*$",
    _I,
)


_H24 = ("um", "gegen", "ab", "à", "vers")


def _previous_word(text: str, start: int) -> str:
    found = re.search(r"([^\W\d_]+)\W*$", text[:start])
    return found.group(1).lower() if found else ""


def _next_word(text: str, end: int) -> str:
    found = re.match(r"\s*([^\W\d_]+)", text[end:])
    return found.group(1).lower() if found else ""


def _following(day: date, today: date) -> date:
    """`day` (read without a year) in this year, or next year when it has passed."""
    for year in (today.year, today.year + 1, today.year + 2):
        try:
            candidate = day.replace(year=year)
        except ValueError:  # 29 February
            continue
        if candidate >= today:
            return candidate
    return day


@lru_cache(maxsize=1024)
def _month_date(words: str, languages: tuple[str, ...]) -> date | None:
    """The day and month dateparser reads in `words` ("4 May", "1er déc.", "4. Mai 2027")."""
    import dateparser  # here, not at the top: a text without a date never pays its import

    settings = {
        "REQUIRE_PARTS": ["day", "month"],
        # A leap year as the base, so "29 February" without a year still reads.
        "RELATIVE_BASE": datetime(2028, 1, 1),  # noqa: DTZ001 - a calendar date, no instant
        "PREFER_DAY_OF_MONTH": "first",
    }
    found = dateparser.parse(words, languages=list(languages), settings=settings)
    return found.date() if isinstance(found, datetime) else None


def _day(match: re.Match[str], when: date, rank: int, level: int = LEVEL_ALONE) -> Piece:
    return Piece("day", match.start(), match.end(), level, day=when, rank=rank)


def _group(match: re.Match[str], name: str) -> str:
    """Group `name` or its numbered twin in another branch ("h2", "d3"), "" when none
    took part: a pattern may name a group once only."""
    for key, value in match.groupdict().items():
        if value is not None and (key == name or (key[:-1] == name and key[-1].isdigit())):
            return value
    return ""


def _clamped(year: int, month: int, day: int) -> date:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return date(year, month, min(day, month_days(year, month)[1].day))


Handler = Callable[[re.Match[str], str, date, bool], list[Piece]]


def _delta(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    number, word = _group(match, "n"), _group(match, "w").lower()
    if _group(match, "half"):
        count = 0.5
    else:
        count = float(number) if number else w.NUMBERS.get(word, 1.5)  # 1.5: "anderthalb"
        count += 0.5 if _group(match, "and_half") else 0
    unit = "hour" if _group(match, "half") else w.UNITS[_group(match, "u").lower()]
    due = _group(match, "pre").lower().startswith(("within", "d'ici", "inn", "bin"))
    if unit in ("minute", "hour"):
        span = timedelta(minutes=count) if unit == "minute" else timedelta(hours=count)
        return [Piece("delta", match.start(), match.end(), delta=span, due=due)]
    if unit in ("day", "week"):
        when = today + timedelta(days=int(count) * (7 if unit == "week" else 1))
    else:
        months = int(count) * (12 if unit == "year" else 1)
        when = _clamped(today.year, today.month + months, today.day)
    return [replace(_day(match, when, 1), due=due)]


def _relative(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    word = match.group(0).lower()
    if word == "morgen" and _previous_word(text, match.start()) in w.NOT_TOMORROW_BEFORE:
        return []
    return [_day(match, today + timedelta(days=w.DAY_WORDS[word]), 1)]


def _weekday(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    name, qualifier = _group(match, "wd").lower(), _group(match, "q").lower()
    short = name in w.SHORT_WEEKDAYS
    if not qualifier and _previous_word(text, match.start()) in w.NAMED_DAYS:
        return []  # "Black Friday", "Easter Monday"
    weekday = w.SHORT_WEEKDAYS[name] if short else w.WEEKDAYS[name]
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and qualifier not in ("this", "diesen", "dieser", "ce"):
        ahead = 7  # "on Monday", said on a Monday, is next week's
    believed = not short or qualifier in ("next", "this", "coming", "on")
    suffix = _group(match, "suffix")
    end = match.start("suffix") if suffix else match.end()
    when = today + timedelta(days=ahead)
    pieces = [Piece("day", match.start(), end, LEVEL_ALONE if believed else LEVEL_COMPANY, when, 2)]
    if suffix:
        part = "morning" if suffix.lower() == "morgen" else w.PARTS[suffix.lower()]
        pieces.append(Piece("part", end, match.end(), part=part))
    return pieces


def _month_day(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    month = _group(match, "m").lower()
    if match.re is _PATTERN_FOR["month_first"] and month in w.WORDLIKE_MONTHS:
        after = _next_word(text, match.end())
        if after and after not in ("at", "um", "à", "and", "to", "by", "for", "until"):
            return []  # "march 5 miles", "Jan 5 questions"
    words = re.sub(r"^the\s+", "", match.group(0), flags=_I)
    found = _month_date(words, tuple(w.month_languages(month)))
    if found is None:
        return []
    year = _group(match, "y")
    when = found.replace(year=int(year)) if year else _following(found, today)
    return [_day(match, when, 3)]


def _month_edge(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    month = w.MONTH_NUMBERS[_group(match, "m").lower()]
    edge = w.MONTH_EDGES[re.sub(r"\s+", " ", _group(match, "edge").lower()).strip()]
    year = int(_group(match, "y") or today.year)
    when = _clamped(year, month, edge)
    if not _group(match, "y") and when < today:
        when = _clamped(year + 1, month, edge)
    return [_day(match, when, 3)]


def _period(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    kind = w.PERIODS[re.sub(r"\s+", " ", match.group(0).lower())]
    monday = today - timedelta(days=today.weekday())
    when = {
        "week": monday + timedelta(days=7),
        "friday": max(monday + timedelta(days=4), today),
        "weekend": max(monday + timedelta(days=5), today),
        "next weekend": monday + timedelta(days=12),
        "month": _clamped(today.year, today.month + 1, 1),
        "month end": _clamped(today.year, today.month, 31),
        "year end": date(today.year, 12, 31),
        "year": date(today.year + 1, 1, 1),
    }[kind]
    return [_day(match, when, 2)]


def _day_of_month(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    written = _group(match, "d").lower()
    number = int(written.removesuffix("er"))
    bare = match.group(0).lower().startswith("le") and not written.endswith("er")
    if not 1 <= number <= 31 or (bare and _next_word(text, match.end()) not in ("", "à", "au")):
        return []  # "le 3 projets"
    when = today
    while when.day != number:
        when += timedelta(days=1)
    level = LEVEL_ASKED if bare and not _DUE.search(text[: match.start()]) else LEVEL_ALONE
    return [_day(match, when, 3, level)]


def _numeric(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    first, second, year_text = int(_group(match, "a")), int(_group(match, "b")), _group(match, "y")
    if iso := _group(match, "iso"):
        year, month, day = int(iso), first, second
    else:
        month_first = second > 12 or (first <= 12 and _group(match, "s") != "." and us)
        month, day = (first, second) if month_first else (second, first)
        year = int(year_text) + (2000 if len(year_text) == 2 else 0) if year_text else 0
    level = LEVEL_ALONE
    if not iso and not year and not _DATE_PREP.search(text[: match.start()]):
        # "1/2 cup", "version 2.0": a date without a year and without "on", "am", "le"
        # before it counts only next to a time; German "14.12." also when asked.
        if _group(match, "s") == "-":
            return []
        german = _group(match, "s") == "." and match.group(0).endswith(".")
        level = LEVEL_ASKED if german else LEVEL_COMPANY
    try:
        when = date(year or today.year, month, day)
    except ValueError:
        return []
    return [_day(match, when if year else _following(when, today), 3, level)]


def _clock(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    written = _group(match, "h")
    hour, minute = int(written), int(_group(match, "m") or 0)
    form = next(k for k, v in match.groupdict().items() if v is not None and k.startswith("t_"))
    ambiguous = 1 <= hour <= 12 and not written.startswith("0")
    prep = bool(_TIME_PREP.search(text[: match.start()]))
    level = LEVEL_ALONE
    if form == "t_ampm":
        hour = hour % 12 + (12 if _group(match, "ap").lower() == "p" else 0)
        ambiguous = False
    elif form in ("t_h", "t_heures"):
        ambiguous = False  # French writes the 24-hour clock
        if form == "t_heures" and not prep:
            return []  # "pendant 2 heures" is a duration
        level = LEVEL_ALONE if _group(match, "m") or prep else LEVEL_ASKED
    elif form == "t_colon":
        level = LEVEL_ALONE if prep or len(written) == 2 else LEVEL_ASKED
    elif form == "t_bare":
        after = _next_word(text, match.end())
        if after in w.COUNTED or (len(after) > 3 and after.endswith("s")):
            return []  # "at 3 projects"
    elif form == "t_half":
        words = match.group(0).lower()
        minute = 15 if "quarter" in words or "viertel" in words else 30
        if "halb" in words or " to " in words or " vor " in words:
            hour, minute = (hour - 1) % 12 or 12, 30 if "halb" in words else 60 - minute
    if _group(match, "m") and (form == "t_uhr" or _previous_word(text, match.start()) in _H24):
        ambiguous = False  # "um 6:40", "6:40 Uhr": German and French write the 24-hour clock
    if form == "t_bare" and _group(match, "m") and match.group(0).lower().startswith(_H24):
        ambiguous = False
    clock = time(hour, minute)
    return [Piece("time", match.start(), match.end(), level, clock=clock, ambiguous=ambiguous)]


def _named_clock(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    word = match.group(0).lower()
    clock = time(0) if word in ("midnight", "mitternacht", "minuit") else time(12)
    before = _previous_word(text, match.start())
    prep = _TIME_PREP.search(text[: match.start()]) or before in ("ce", "demain", "heute")
    level = LEVEL_ASKED if word == "midi" and not prep else LEVEL_ALONE
    return [Piece("time", match.start(), match.end(), level, clock=clock)]


def _part(match: re.Match[str], text: str, today: date, us: bool) -> list[Piece]:
    word = (_group(match, "p") or "morgen").lower()
    if _previous_word(text, match.start()) in w.GREETINGS:
        return []  # "good morning", "guten Abend"
    part = "evening" if word == "tonight" else "morning" if word == "morgen" else w.PARTS[word]
    pinned = word == "tonight" or bool(_group(match, "t"))
    level = LEVEL_ALONE if pinned else LEVEL_ASKED
    return [Piece("part", match.start(), match.end(), level, part=part, today=pinned)]


_DAY_NUMBER = r"(?P<d>[0-3]?\d)"
_PATTERNS: dict[str, tuple[str, Handler]] = {
    "delta": (
        rf"\b(?P<pre>in|dans|within|innerhalb\s+von|binnen|d'ici)\s+(?:(?P<half>half\s+an\s+hour"
        rf"|einer\s+halben\s+stunde|une\s+demi[-\s]heure)|(?:(?P<n>\d{{1,3}})|(?P<w>{_NUMBER}"
        rf"|anderthalb|eineinhalb))\s*(?P<u>{_words(w.UNITS)})(?P<and_half>\s+and\s+a\s+half"
        rf"|\s+et\s+demie?)?)(?!\w)(?:'s?\s+time)?",
        _delta,
    ),
    "relative": (rf"(?<!\w){_words(w.DAY_WORDS)}(?!\w)", _relative),
    "weekday": (
        r"(?<!\w)(?:(?P<q>next|this|coming|on|nächsten|nächster|kommenden|diesen|dieser|am|ce|le)"
        rf"\s+)?(?P<wd>{_WEEKDAY})(?P<suffix>morgen|vormittag|mittag|nachmittag|abend|nacht)?"
        r"(?!\w)(?:\s+(?:prochain|qui\s+vient)(?!\w))?",
        _weekday,
    ),
    "month_day": (
        rf"(?<!\w)(?:the\s+)?{_DAY_NUMBER}(?:st|nd|rd|th|er|e|ème|\.)?\s*(?:of\s+)?"
        rf"(?P<m>{_MONTH})(?!\w)\.?(?:\s*,?\s*(?P<y>\d{{4}})(?!\w))?",
        _month_day,
    ),
    "month_first": (
        rf"(?<!\w)(?P<m>{_MONTH})\.?\s+(?:the\s+)?{_DAY_NUMBER}(?:st|nd|rd|th)?(?![\w:]|[.,]\d)"
        rf"(?:\s*,?\s*(?P<y>\d{{4}})(?!\w))?",
        _month_day,
    ),
    "month_edge": (
        rf"(?<!\w)(?P<edge>{_words(w.MONTH_EDGES)})\s*(?P<m>{_MONTH})(?!\w)(?:\s+(?P<y>\d{{4}})(?!\w))?",
        _month_edge,
    ),
    "period": (rf"(?<!\w){_words(w.PERIODS)}(?!\w)", _period),
    "day_of_month": (
        r"(?<!\w)(?:the\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)|(?:am|zum)\s+(?P<d2>[0-3]?\d)\.(?![\w.])"
        r"|le\s+(?P<d3>1er|[0-3]?\d))(?!\w)(?!\s*(?:%|€|\$|[.,/:]\d|h\b))",
        _day_of_month,
    ),
    "numeric": (
        r"(?<![\w./-])(?:(?P<iso>\d{4})-(?P<a2>\d{1,2})-(?P<b2>\d{1,2})"
        r"|(?P<a>\d{1,2})(?P<s>[./-])(?P<b>\d{1,2})(?:(?P=s)(?P<y>\d{4}|\d{2}))?\.?)(?![\w/-]|[.]\d)",
        _numeric,
    ),
    "clock": (
        r"(?<![\w:.])(?:(?P<t_ampm>(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>[ap])\.?\s?m\.?)"
        r"|(?P<t_uhr>(?P<h2>[01]?\d|2[0-3])(?:[:.](?P<m2>[0-5]\d))?\s*uhr)"
        r"|(?P<t_h>(?P<h3>[01]?\d|2[0-3])\s?h(?:\s?(?P<m3>[0-5]\d))?)"
        r"|(?P<t_heures>(?P<h4>[01]?\d|2[0-3])\s+heures?(?:\s+(?P<m4>[0-5]\d))?)"
        r"|(?P<t_colon>(?P<h5>[01]?\d|2[0-3]):(?P<m5>[0-5]\d))"
        r"|(?P<t_oclock>(?P<h6>1[0-2]|0?[1-9])\s*o'?clock)"
        r"|(?P<t_bare>(?:at|um|gegen|around|@)\s*(?P<h7>[01]?\d|2[0-3])(?:[:.](?P<m7>[0-5]\d))?"
        r"(?!\s*(?:%|€|\$|[.,/-]?\d|(?:uhr|h|heures?|o'?clock|[ap]\.?\s?m)(?!\w))))"
        r"|(?P<t_half>(?:half|quarter)\s+(?:past|to)\s+(?P<h8>1[0-2]|[1-9])"
        r"|(?:um\s+)?(?:halb|viertel\s+(?:nach|vor))\s+(?P<h9>1[0-2]|[1-9])))(?!\w|[.,:]\d)",
        _clock,
    ),
    "named_clock": (r"(?<!\w)(?:noon|midnight|mitternacht|minuit|midi)(?!\w)", _named_clock),
    "part": (
        rf"(?<!\w)(?:(?P<t>this|heute|ce|cet|cette)\s+(?P<p>{_PART}|morgen)|(?P<p2>tonight)"
        rf"|(?:(?:in\s+the|dans\s+la|du|le|l')\s+)?(?P<p3>{_PART})|am\s+morgen)(?!\w)",
        _part,
    ),
}
_PATTERN_FOR = {name: re.compile(pattern, _I) for name, (pattern, _) in _PATTERNS.items()}


def scan(text: str, today: date, month_first: bool) -> list[Piece]:
    """Every piece in `text`, the longest where two overlap, in text order.
    `month_first`: read "12/1" as December 1 (the person's zone is in the Americas)."""
    found: list[Piece] = []
    for name, pattern in _PATTERN_FOR.items():
        for match in pattern.finditer(text):
            found.extend(_PATTERNS[name][1](match, text, today, month_first))
    kept: list[Piece] = []
    for piece in sorted(found, key=lambda p: (p.start - p.end, p.start)):
        if all(piece.end <= k.start or piece.start >= k.end for k in kept):
            kept.append(piece)
    return sorted(kept, key=lambda p: p.start)


def prefix_start(text: str, start: int) -> tuple[int, bool]:
    """Where the date phrase begins once its preposition and deadline word are counted
    ("by Dec 1", "am Freitag", "avant le 1er décembre"), and whether it is a deadline."""
    for _ in range(3):
        if found := _DUE.search(text[:start]):
            return found.start(), True
        if not (found := _PREP.search(text[:start])):
            break
        start = found.start()
    return start, False
