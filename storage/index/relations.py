"""What kind of link a link is: the typed relations that basic-memory writes and
Dataview's inline fields, read from a note's body (code already blanked out).

    - works_at [[Acme]]                 a list item: one word (or "a quoted label"),
    - "reports to" [[Dana]] (since May)   one wikilink, at most one (context) after it
    employer:: [[Acme]], [[Initech]]    a Dataview field on its own line: every link
    - employer:: [[Acme]]                 in its value has the field's name as type
    Met her at [met_at:: [[Acme]]].     a bracketed inline field, also (key:: value)

The list-item form follows basic-memory's parser (its `plugins.py`): a line with
prose after the link ("- Call [[Sarah]] about the budget") is an ordinary link, not
a relation, and a label with spaces must be quoted. Anything else stays untyped, as
every link was before. A type is kept as written; comparisons ignore case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from storage.text import wikilinks

_WIKI = wikilinks.SOURCE
_LABEL = r"(?P<label>\w[\w-]*|\"[^\"\n]+\"|'[^'\n]+')"
# basic-memory: `- type [[Target]] (context)` and nothing else on the line.
_LIST_RELATION = re.compile(
    rf"^[ \t]*(?:[-*+]|\d{{1,9}}[.)])[ \t]+{_LABEL}[ \t]+(?P<link>{_WIKI})[ \t]*(?P<tail>.*)$",
    re.M,
)
_KEY = r"(?:\*\*|__)?(?P<key>\w[\w \-/]{0,62}?)(?:\*\*|__)?"
# Dataview: `key:: value` alone on its line (after a list marker or a quote marker).
_LINE_FIELD = re.compile(
    rf"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?{_KEY}[ \t]*::(?P<value>[^\n]*)$", re.M
)
# Dataview: `[key:: value]` or `(key:: value)` anywhere in a line.
_INLINE_FIELD = re.compile(
    rf"\[[ \t]*{_KEY}[ \t]*::(?P<value>(?:{_WIKI}|[^\[\]\n])*)\]"
    rf"|\([ \t]*(?P<key2>\w[\w \-/]{{0,62}}?)[ \t]*::(?P<value2>(?:{_WIKI}|[^()\n])*)\)"
)


@dataclass(frozen=True, slots=True)
class TypedSpan:
    """A stretch of the body whose links have the relation `type`."""

    start: int
    end: int
    type: str


def _single_parenthesized(text: str) -> bool:
    """Whether `text` is one balanced `( … )` group and nothing more (basic-memory's
    rule: `(a) and [[B]] (b)` is prose, not a context)."""
    if not text.startswith("("):
        return False
    depth = 0
    for position, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return position == len(text) - 1
    return False


def _label(raw: str) -> str:
    return raw[1:-1].strip() if raw[:1] in "\"'" else raw


def typed_spans(masked: str) -> list[TypedSpan]:
    """Where links are typed in `masked` (a body with its code blanked, same offsets);
    an inline field inside a line field wins, being the narrower."""
    spans: list[TypedSpan] = []
    for match in _INLINE_FIELD.finditer(masked):
        key = match["key"] or match["key2"]
        value = "value" if match["key"] else "value2"
        spans.append(TypedSpan(match.start(value), match.end(value), key.strip()))
    for match in _LINE_FIELD.finditer(masked):
        spans.append(TypedSpan(match.start("value"), match.end("value"), match["key"].strip()))
    for match in _LIST_RELATION.finditer(masked):
        tail = match["tail"].strip()
        label = _label(match["label"])
        if label and (not tail or _single_parenthesized(tail)):
            spans.append(TypedSpan(match.start("link"), match.end("link"), label))
    return spans


def relation_at(spans: list[TypedSpan], start: int, end: int) -> str | None:
    """The type of the link at `start:end`, or None (untyped): the first span holding it."""
    for span in spans:
        if span.start <= start and end <= span.end:
            return span.type
    return None
