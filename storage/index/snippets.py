"""The line of context a search hit shows: around the first matched word, else the start."""

from __future__ import annotations

import re
from collections.abc import Iterable

from storage.index.tokens import fold

SNIPPET_CHARS = 160
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")


def _first_match(body: str, terms: frozenset[str], prefixes: tuple[str, ...]) -> int:
    for match in _WORD.finditer(body):
        word = fold(match.group(0))
        if word in terms or (prefixes and word.startswith(prefixes)):
            return match.start()
    return -1


def make_snippet(
    body: str,
    terms: Iterable[str] = (),
    *,
    prefixes: Iterable[str] = (),
    start: int = 0,
    width: int = SNIPPET_CHARS,
) -> str:
    """About `width` characters of `body` around the first of `terms` (or a word starting
    with one of `prefixes`); without a match, from `start` (e.g. the best chunk)."""
    position = _first_match(body, frozenset(terms), tuple(prefixes)) if terms or prefixes else -1
    if position < 0:
        position, lead = start, 0
    else:
        lead = width // 3
    begin = max(0, position - lead)
    if begin > 0:
        space = body.find(" ", begin, position)
        begin = space + 1 if space >= 0 else begin
    end = min(len(body), begin + width)
    if end < len(body):
        space = body.rfind(" ", begin + width // 2, end)
        end = space if space > 0 else end
    text = _SPACE.sub(" ", body[begin:end]).strip()
    return ("…" if begin > 0 else "") + text + ("…" if end < len(body) else "")
