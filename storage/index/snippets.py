"""Why a search hit matched: the line of context it shows (around the first matched
word, else the best chunk, else the start), that line with the query's words marked,
and which side of a hybrid search found it."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from storage.index.tokens import fold
from storage.text import wikilinks
from storage.text.urls import link_spans

SNIPPET_CHARS = 160
# How a matched word is marked in a passage: Markdown's bold, which reads as emphasis
# in plain text too; each chat platform's renderer turns it into its own bold.
MARK = "**"
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")
# A wikilink, or what a passage cut short left of one at its start or its end.
_LINKISH = re.compile(rf"(?P<whole>!?{wikilinks.SOURCE})|\A[^\[\]\n]*\]\]|(?<!\\)\[\[[^\[\]\n]*\Z")

WORDS = "words"
MEANING = "meaning"
BOTH = "both"


def _matches(word: str, terms: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    folded = fold(word)
    return folded in terms or bool(prefixes and folded.startswith(prefixes))


def _first_match(body: str, terms: frozenset[str], prefixes: tuple[str, ...]) -> int:
    for match in _WORD.finditer(body):
        if _matches(match.group(0), terms, prefixes):
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


def mark_words(text: str, terms: Iterable[str] = (), *, prefixes: Iterable[str] = ()) -> str:
    """`text` with each word that is one of `terms` (or starts with one of `prefixes`),
    as the index folds words, marked `**word**`: the words a keyword match stands on.
    Nothing inside a `[[wikilink]]` or a web address is marked, which would break it:
    a link holding such a word is marked whole, an address not at all."""
    wanted, starts = frozenset(terms), tuple(prefixes)
    if not wanted and not starts:
        return text
    if "[[" not in text and "]]" not in text and "://" not in text:
        return _marked(text, wanted, starts)
    out: list[str] = []
    at = 0
    for start, end, whole_link in _unmarkable(text):
        if start < at:
            continue  # an address inside a link: the link decides
        out.append(_marked(text[at:start], wanted, starts))
        piece = text[start:end]
        if whole_link and _marked(piece, wanted, starts) != piece:
            piece = f"{MARK}{piece}{MARK}"
        out.append(piece)
        at = end
    out.append(_marked(text[at:], wanted, starts))
    return "".join(out)


def _unmarkable(text: str) -> list[tuple[int, int, bool]]:
    """Where no word may be marked, in order: each wikilink (True: whole, so it may be
    marked as one), the part of a link a passage's cut left at either end, and each
    web address."""
    spans = [(m.start(), m.end(), m["whole"] is not None) for m in _LINKISH.finditer(text)]
    spans += [(start, end, False) for start, end in link_spans(text)]
    return sorted(spans)


def _marked(text: str, wanted: frozenset[str], starts: tuple[str, ...]) -> str:
    if not text:
        return text
    if text.isascii():
        # Folding ASCII is lower-casing: one regex (made once per query) marks every
        # word at C speed, where a Python call per word cost 60 µs a snippet.
        return _ascii_marks(wanted, starts).sub(rf"{MARK}\g<0>{MARK}", text)

    def marked(match: re.Match[str]) -> str:
        word = match.group(0)
        return f"{MARK}{word}{MARK}" if _matches(word, wanted, starts) else word

    return _WORD.sub(marked, text)


@functools.lru_cache(maxsize=256)
def _ascii_marks(terms: frozenset[str], prefixes: tuple[str, ...]) -> re.Pattern[str]:
    exact = sorted(t for t in terms if t.isascii() and not t.startswith(prefixes))
    words = "|".join(re.escape(t) for t in exact) or "(?!)"
    starts = "|".join(re.escape(p) for p in sorted(prefixes) if p.isascii()) or "(?!)"
    return re.compile(rf"\b(?:(?:{starts})\w*|(?:{words})\b)", re.IGNORECASE)


def matched_by(keyword: Sequence[int], vector: Sequence[int]) -> dict[int, str]:
    """Which side of a search found each note: "words" (the keyword ranking), "meaning"
    (the vector ranking) or "both". Read off the two rankings as they were, so the
    fusion (storage.index.search.fuse) is untouched by it."""
    words, meaning = set(keyword), set(vector)
    return {
        entry_id: BOTH
        if entry_id in words and entry_id in meaning
        else (WORDS if entry_id in words else MEANING)
        for entry_id in words | meaning
    }
