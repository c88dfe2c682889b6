"""The search syntax, parsed once for every way in (the search tool, `/search`,
`brainbot search`): query text → `SearchQuery`.

    budget call          words: ranked (BM25 and vectors), none of them required
    "budget call"        the phrase must occur, its words in that order
    budget AND call      both must occur
    tea OR coffee        one of them must occur (OR binds tighter than AND)
    NOT draft, -draft    must not occur (also -"a phrase"); a dash before one letter
                         is a command's flag, a word of the question (`netstat -i`)
    tag:x category:x status:x title:x (title:"two words")
    after:2026-11-01 before:2026-11-30 (or YYYY-MM): when the note last changed
                         (its `updated`, else `created`, field), both days included
    linked:[[Acme]]      notes linking to Acme (as backlinks count them; also
                         linked:Acme, linked:"Acme Corp"); linked:works_at:[[Acme]]
                         only with a link of that type (`- works_at [[Acme]]`)

Only uppercase AND/OR/NOT are operators: "salt and pepper" stays three words.
Anything malformed is read as the plain words it contains, never as a filter that
matches nothing: a lone or unbalanced quote, `"$"`, an operator with nothing to
join, `-` alone, `tag:` without a value, `after:notadate`, an unknown `foo:bar`
(so `https://x` and `10:30` are words), parentheses (there is no grouping).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from storage.index.filters import Filters, LinkedTo
from storage.index.tokens import tokenize
from storage.text import wikilinks
from storage.text.dates import iso_day, iso_month, month_days

OPERATORS = ("AND", "OR", "NOT")
FIELDS = ("tag", "category", "status", "title", "after", "before", "linked")
_QUOTES = '"\u201c\u201d\u201e'  # straight, and the curly ones phones type
_SEPARATORS = "()"
_TRAILING = ".,;!?"  # punctuation that ends a sentence, not a value or a word
_FIELD = re.compile(r"([A-Za-z]+):(.*)", re.DOTALL)
# `linked:[[Two Words]]` is one lexeme, spaces and all.
_LINKED = re.compile(rf"linked:(?:[\w-]+:)?{wikilinks.SOURCE}", re.IGNORECASE)
_LINKED_VALUE = re.compile(r"(?:([\w-]+):)?(.+)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """What a search asks for. `words` rank (and pick snippets); `text` is what the
    vector side embeds (the query itself when it has no syntax); `filters` hold every
    hard restriction, fields and text conditions alike. No words but filters: a
    listing of the notes the filters let through."""

    words: tuple[str, ...] = ()
    text: str = ""
    filters: Filters = field(default_factory=Filters)


@dataclass(slots=True)
class _Term:
    """A word or phrase of the query while operators are being resolved."""

    value: str
    phrase: bool = False
    negated: bool = False
    required: bool = False
    operand: bool = True  # False for an operator read as a plain word

    @property
    def positive(self) -> bool:
        return self.operand and not self.negated


@dataclass(slots=True)
class _Op:
    name: str


@dataclass(slots=True)
class _Group:
    members: list[_Term]


_Item = _Term | _Op | _Group


def _closing_quote(text: str, start: int) -> int:
    for i in range(start, len(text)):
        if text[i] in _QUOTES:
            return i
    return -1


def _lex(text: str) -> list[tuple[str, str | None]]:
    """(bare text, quoted text or None) per lexeme; whitespace and parentheses separate,
    a quote at a word's start runs to the next quote; any other quote separates."""
    out: list[tuple[str, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace() or text[i] in _SEPARATORS:
            i += 1
            continue
        start = i
        if linked := _LINKED.match(text, i):
            out.append((linked.group(0), None))
            i = linked.end()
            continue
        while i < n and not (text[i].isspace() or text[i] in _SEPARATORS or text[i] in _QUOTES):
            i += 1
        bare = text[start:i]
        if i < n and text[i] in _QUOTES:
            # Only a quote opening a word opens a phrase (`5" pipe` is no phrase).
            opens = bare in ("", "-") or bare.endswith(":")
            close = _closing_quote(text, i + 1) if opens else -1
            if close >= 0:
                out.append((bare, text[i + 1 : close]))
                i = close + 1
                continue
            i += 1
        if bare:
            out.append((bare, None))
    return out


def _date_range(value: str) -> tuple[date, date] | None:
    """First and last day of `YYYY-MM-DD` or `YYYY-MM`; None for anything else."""
    if day := iso_day(value):
        return day, day
    month = iso_month(value)
    return None if month is None else month_days(*month)


class _Fields:
    """The field filters read so far; `take` says whether a `key:value` was valid."""

    def __init__(self) -> None:
        self.filters = Filters()

    def take(self, key: str, value: str) -> bool:
        # `status:done,` in a sentence: the comma is not part of the value.
        key, value = key.lower(), value.strip().rstrip(_TRAILING)
        if key not in FIELDS or not tokenize(value):
            return False
        f = self.filters
        if key in ("after", "before"):
            days = _date_range(value)
            if days is None:
                return False
            if key == "after":
                self.filters = f.merged(Filters(modified_after=days[0]))
            else:
                self.filters = f.merged(Filters(modified_before=days[1]))
        elif key == "tag":
            self.filters = f.merged(Filters(tags=(value,)))
        elif key == "category":
            self.filters = f.merged(Filters(category=value.lower()))
        elif key == "status":
            self.filters = f.merged(Filters(status=value))
        elif key == "linked":
            return self._linked(value)
        else:
            self.filters = f.merged(Filters(titles=(value,)))
        return True

    def _linked(self, value: str) -> bool:
        found = _LINKED_VALUE.fullmatch(value)
        if found is None:
            return False
        link = wikilinks.read(found[2])
        name = link.target if link else found[2].partition("|")[0].partition("#")[0].strip()
        if not tokenize(name):
            return False
        self.filters = self.filters.merged(Filters(linked=(LinkedTo(name, found[1]),)))
        return True


def _is_field(bare: str) -> bool:
    key = _FIELD.fullmatch(bare)
    return bool(key and key[1].lower() in FIELDS)


def _excludes(bare: str) -> bool:
    """Whether `-word` leaves out the notes holding the word. `-i` or `-L,` is not read so:
    one letter is no word anyone leaves out, but it is how a command's flag is written,
    and `netstat -i` would leave out every note with the word "I", netstat's own too."""
    word = bare[1:].rstrip(_TRAILING)
    return bare[:1] == "-" and bare[1:2].isalpha() and len(word) > 1 and not _is_field(bare[1:])


def _classify(lexemes: list[tuple[str, str | None]], found: _Fields) -> list[_Item]:
    items: list[_Item] = []
    for bare, quoted in lexemes:
        if quoted is None:
            key = _FIELD.fullmatch(bare)
            if bare in OPERATORS:
                items.append(_Op(bare))
            elif key and found.take(key[1], key[2]):
                pass
            elif _excludes(bare):
                items.append(_Term(bare[1:], negated=True))
            else:
                items.append(_Term(bare))
            continue
        key = _FIELD.fullmatch(bare)
        # `linked:works_at:"Acme Corp"`: the type stays in front of the name.
        typed = key is not None and key[1].lower() == "linked" and key[2].endswith(":")
        if key and (not key[2] or typed) and found.take(key[1], key[2] + quoted):
            continue
        if bare == "-":
            items.append(_Term(quoted, phrase=True, negated=True))
            continue
        if bare:
            items.append(_Term(bare))
        items.append(_Term(quoted, phrase=True))
    # A term with nothing searchable in it ("$", "-") joins nothing and filters nothing.
    return [i for i in items if not isinstance(i, _Term) or tokenize(i.value)]


def _plain(op: _Op) -> _Term:
    return _Term(op.name, operand=False)


def _resolve_not(items: list[_Item]) -> list[_Item]:
    out: list[_Item] = []
    i = 0
    while i < len(items):
        item, following = items[i], items[i + 1] if i + 1 < len(items) else None
        if isinstance(item, _Op) and item.name == "NOT":
            if isinstance(following, _Term) and following.positive:
                following.negated = True
                out.append(following)
                i += 2
                continue
            item = _plain(item)
        out.append(item)
        i += 1
    return out


def _operand(item: _Item | None) -> bool:
    return isinstance(item, _Term) and item.positive


def _is(item: _Item | None, name: str) -> bool:
    return isinstance(item, _Op) and item.name == name


def _resolve_or(items: list[_Item]) -> list[_Item]:
    out: list[_Item] = []
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, _Term) and _operand(item):
            members = [item]
            while i + 2 < len(items) and _is(items[i + 1], "OR") and _operand(items[i + 2]):
                member = items[i + 2]
                assert isinstance(member, _Term)
                members.append(member)
                i += 2
            out.append(_Group(members) if len(members) > 1 else item)
        elif isinstance(item, _Op) and item.name == "OR":
            out.append(_plain(item))
        else:
            out.append(item)
        i += 1
    return out


def _joinable(item: _Item | None) -> bool:
    return isinstance(item, _Group) or (isinstance(item, _Term) and item.operand)


def _resolve_and(items: list[_Item]) -> list[_Item]:
    out: list[_Item] = []
    for i, item in enumerate(items):
        if not _is(item, "AND"):
            out.append(item)
            continue
        left = items[i - 1] if i > 0 else None
        right = items[i + 1] if i + 1 < len(items) else None
        if _joinable(left) and _joinable(right):
            for side in (left, right):
                if isinstance(side, _Term):
                    side.required = True
        else:
            assert isinstance(item, _Op)
            out.append(_plain(item))
    return out


def parse_query(text: str) -> SearchQuery:
    """`text` as a `SearchQuery`; never raises, and anything it cannot read as syntax
    is kept as plain words (see the module docstring)."""
    found = _Fields()
    items = _resolve_and(_resolve_or(_resolve_not(_classify(_lex(text), found))))
    required: list[str] = []
    excluded: list[str] = []
    groups: list[tuple[str, ...]] = []
    ranked: list[str] = []
    for item in items:
        if isinstance(item, _Group):
            groups.append(tuple(m.value for m in item.members))
            ranked += [m.value for m in item.members]
        elif isinstance(item, _Term) and item.negated:
            excluded.append(item.value)
        elif isinstance(item, _Term):
            ranked.append(item.value)
            if item.phrase or item.required:
                required.append(item.value)
    conditions = Filters(required=tuple(required), any_of=tuple(groups), excluded=tuple(excluded))
    filters = found.filters.merged(conditions)
    words = tuple(dict.fromkeys(w for part in ranked for w in tokenize(part)))
    # Without syntax the vector side embeds the text as typed (an emoji has no words
    # but may have neighbours); with it, only what is left once the syntax is out.
    return SearchQuery(words, " ".join(ranked) if filters.active else text, filters)
