"""Putting the pieces of a date phrase together (storage.text.dates.pieces finds them): which
pieces belong together, which are believed, what moment they make, and what is left
of the text for a title. storage.text.dates.when is the public face and says what it all means."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from storage.text.dates import words
from storage.text.dates.pieces import LEVEL_ALONE, LEVEL_ASKED, Piece, prefix_start, scan
from storage.text.dates.repeat import Rule, find_repeat, next_occurrence

_ASK = re.compile(rf"(?<!\w){words.ASK}(?!\w)", re.IGNORECASE)
TRIGGER = re.compile(
    r"\d|(?<!\w)(?:"
    + words.alternation(
        [
            *words.DAY_WORDS,
            *words.WEEKDAYS,
            *words.SHORT_WEEKDAYS,
            *words.MONTH_NUMBERS,
            *words.PARTS,
            *(unit for unit in words.UNITS if len(unit) > 3),
            *words.TRIGGER_WORDS.split(),
        ]
    )
    + r")s?(?!\w)|(?<!\w)(?:"
    + words.alternation(words.WEEKDAYS)  # and "Montagabend"
    + rf")|{words.TRIGGER_STEMS}",
    re.IGNORECASE,
)
_GLUE = re.compile(
    r"[\s,]*(?:(?:at|on|um|am|à|a|le|the|of|du|den|dem|vers|gegen|around|@|-|\u2013|from|ab|dès)"
    r"[\s,]*)*",
    re.IGNORECASE,
)
_LEAD = re.compile(rf"^(?:(?:{words.LEAD_WORDS})(?!\w)|(?:d|qu)'|[\s,;:.\-\u2013])+", re.IGNORECASE)
_TAIL = re.compile(rf"(?:(?:^|\s)(?:{words.TAIL_WORDS})|[\s,;:\-\u2013])+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class When:
    """What a text says about time. `asked`: the person asked to be reminded, whether
    or not a time was found ("remind me to call mom" -> ask them when). `found`: it
    names a due day, a reminder or a repeat; `plans`: it asks to be reminded or names
    one of those, what a reminder a model set for them must rest on. Both are decided
    when it is made: the turn, the capture's title and its tool each ask."""

    due: date | None = None
    remind: datetime | None = None
    repeat: str | None = None
    phrase: str = ""
    rest: str = ""
    asked: bool = False
    found: bool = field(init=False, repr=False, compare=False)
    plans: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        found = self.due is not None or self.remind is not None or self.repeat is not None
        object.__setattr__(self, "found", found)
        object.__setattr__(self, "plans", self.asked or found)


def at(day: date, clock: time, zone: ZoneInfo) -> datetime:
    """`day` at the wall-clock `clock` in `zone`; a time a DST change skips moves on."""
    return datetime.combine(day, clock, tzinfo=zone).astimezone(UTC).astimezone(zone)


def _groups(text: str, pieces: list[Piece]) -> list[list[Piece]]:
    """Pieces that stand next to each other with only "at", "on", "um", "à"... between."""
    out: list[list[Piece]] = []
    for piece in pieces:
        if out and _GLUE.fullmatch(text, out[-1][-1].end, piece.start):
            out[-1].append(piece)
        else:
            out.append([piece])
    return out


def _believed(group: list[Piece], asked: bool) -> bool:
    """A group with a piece that counts alone; or one that needs company and has it,
    or has an ask or a repeat to lean on."""
    level = max(p.level for p in group)
    return level == LEVEL_ALONE or (level == LEVEL_ASKED and (asked or len(group) > 1))


def _clocks(group: list[Piece], default_time: time) -> tuple[list[time], bool]:
    """The times of day the group may mean, likeliest first, and whether one was
    written out (a part of the day or a default is not)."""
    part = next((p.part for p in group if p.kind == "part"), None)
    said = next((p for p in group if p.kind == "time"), None)
    if said and said.clock:
        clock = said.clock
        if part in ("afternoon", "evening", "night") and clock.hour < 12:
            return [clock.replace(hour=clock.hour + 12)], True
        if not said.ambiguous or part in ("morning", "late morning") or clock.hour == 12:
            return [clock], True
        later = clock.replace(hour=clock.hour + 12)
        return ([later, clock] if clock.hour <= 6 else [clock, later]), True
    if part == "morning" and default_time.hour < 12:
        return [default_time], False
    return ([words.PART_TIMES[part]] if part else []), False


@dataclass(slots=True)
class _Reading:
    day: date | None = None
    moment: datetime | None = None
    written: bool = False  # the moment's time of day was written out ("at 9", "in 2 hours")
    timed: bool = False  # written out, or a part of the day ("tonight")
    due: bool = False
    spans: list[tuple[int, int]] = field(default_factory=list)


def _reading(text: str, chosen: list[list[Piece]], now: datetime, default_time: time) -> _Reading:
    zone = now.tzinfo
    assert isinstance(zone, ZoneInfo)
    pieces = [p for group in chosen for p in group]
    out = _Reading()
    for group in chosen:
        start, due = prefix_start(text, group[0].start)
        out.spans.append((start, group[-1].end))
        out.due = out.due or due or any(p.due for p in group)
    days = [p for p in pieces if p.kind == "day" and p.day]
    best = max(days, key=lambda p: p.rank) if days else None
    today = now.date()
    out.day = best.day if best else today if any(p.today for p in pieces) else None
    if delta := next((p.delta for p in pieces if p.delta), None):
        out.moment = (now + delta).replace(second=0, microsecond=0)
        out.day, out.written, out.timed = out.moment.date(), True, True
        return out
    clocks, out.written = _clocks(pieces, default_time)
    out.timed = bool(clocks)
    if not clocks:
        return out
    if out.day is None:  # a time without a date: today if still ahead, else tomorrow
        moment = at(today, clocks[0], zone)
        out.moment = moment if moment > now else at(today + timedelta(days=1), clocks[0], zone)
        out.day = out.moment.date()
        return out
    out.moment = at(out.day, clocks[0], zone)
    if out.moment <= now and out.day == today and len(clocks) > 1:
        out.moment = at(out.day, clocks[1], zone)
    return out


def _ahead(moment: datetime, written: bool, now: datetime) -> datetime | None:
    """`moment`, or a later one today when it was a default that has passed."""
    if moment > now:
        return moment
    if written or moment.date() != now.date():
        return None
    next_hour = (now + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
    return next_hour if next_hour.date() == now.date() else None


def _title(text: str, spans: list[tuple[int, int]]) -> str:
    kept, last = [], 0
    for start, end in sorted(spans):
        kept.append(text[last:start])
        last = max(last, end)
    kept.append(text[last:])
    title = re.sub(r"\s+", " ", " ".join(kept)).strip()
    title = re.sub(r"\s+([,;:.!?])", r"\1", title)
    previous = None
    while previous != title:
        previous = title
        title = _TAIL.sub("", _LEAD.sub("", title)).strip(" ,;:-\u2013.")
    return title


def _completed(first: list[Piece], groups: list[list[Piece]]) -> list[list[Piece]]:
    """`first`, with a group that has only the time it lacks ("tomorrow ... at 9") or
    only the day it lacks ("at 9 ... tomorrow")."""
    chosen, kinds = [first], {p.kind for p in first}
    for group in groups:
        other = {p.kind for p in group}
        lacks_time = not kinds & {"time", "part", "delta"} and other <= {"time", "part"}
        lacks_day = not kinds & {"day", "delta"} and other == {"day"}
        if group is not first and (lacks_time or lacks_day):
            chosen.append(group)
            kinds |= other
    return chosen


def read_text(text: str, now: datetime, default_time: time, asked: bool = False) -> When:
    """What `text` says about time; `now` is in the person's zone. `asked`: read it as
    a reminder even without "remind me" (a model's value for `remind`). A suggestion or
    a maybe keeps its date but reminds of nothing unless the person asks."""
    found = _read_text(text, now, default_time, asked)
    if found.asked or not words.TENTATIVE.search(text):
        return found
    return replace(found, remind=None, repeat=None)


def _read_text(text: str, now: datetime, default_time: time, asked: bool) -> When:
    zone = now.tzinfo
    assert isinstance(zone, ZoneInfo)
    text = text.replace("\u2019", "'")  # same length: the spans still fit the original
    ask = _ASK.search(text)
    asked = asked or ask is not None
    repeat = find_repeat(text)
    masked = text
    pieces = []
    if repeat:
        masked = text[: repeat.start] + " " * (repeat.end - repeat.start) + text[repeat.end :]
        level = LEVEL_ASKED if repeat.weak else LEVEL_ALONE
        part = Piece("part", repeat.start, repeat.end, level, part=repeat.part)
        pieces.append(part if repeat.part else Piece("repeat", repeat.start, repeat.end, level))
    pieces = sorted(
        pieces + scan(masked, now.date(), zone.key.startswith("America/")), key=lambda p: p.start
    )
    groups = [g for g in _groups(masked, pieces) if _believed(g, asked)]
    asks = [(ask.start(), ask.end())] if ask else []
    if not groups:
        return When(rest=_title(text, asks), asked=asked)
    in_repeat = [g for g in groups if repeat and g[0].start <= repeat.start < g[-1].end]
    after_ask = [g for g in groups if ask and g[0].start >= ask.end()]
    chosen = _completed((in_repeat or after_ask or groups)[0], groups)
    reading = _reading(masked, chosen, now, default_time)
    phrase = " ".join(text[start:end].strip() for start, end in reading.spans)
    rest = _title(text, asks + reading.spans)
    yearly = not repeat and reading.day and words.YEARLY_EVENT.search(text)
    rule = repeat.rule if repeat and (not repeat.weak or asked or len(chosen[0]) > 1) else None
    if yearly:
        rule = Rule("year")
    if rule:
        clocks, _ = _clocks([p for g in chosen for p in g], default_time)
        anchor = at(reading.day or now.date(), (clocks or [default_time])[0], zone)
        remind = next_occurrence(str(rule), now, anchor)
        due = remind.date() if yearly and remind else None
        return When(due, remind, str(rule), phrase, rest, asked)
    if reading.moment is None and reading.day is None:
        return When(rest=_title(text, asks), asked=asked)
    day = reading.day or (reading.moment.date() if reading.moment else None)
    if asked:
        moment = reading.moment or (at(day, default_time, zone) if day else None)
        remind = _ahead(moment, reading.written, now) if moment else None
        return When(day if reading.due else None, remind, None, phrase, rest, asked)
    if reading.due:
        return When(day, None, None, phrase, rest)
    if (reading.moment and reading.moment <= now) or (day and day < now.date()):
        return When(rest=text.strip())  # "this morning I met Sam": a memory, not a plan
    return When(day, reading.moment if reading.timed else None, None, phrase, rest)
