"""The names a note may be mentioned by, and finding one written in another note
without a link: the weekly review's "unlinked mentions" and its Link button.

A name is a note's title or one of its `aliases`. Names too short to mean one note
are left out: fewer than MIN_CHARS letters and digits, or no letter at all (`2026`,
a date). Whether a one-word name is too common is a property of the vault (how many
notes use the word), decided when mentions are looked for (storage.index.mention_search).

A mention is the name written as whole words, in any case and with or without
accents (`cafe` and `Café` meet), words separated as in the name or by spaces,
hyphens or underscores, outside code and outside any link (a name inside
`[text](url)` or `[[…]]` is no mention to link).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from storage.index.tokens import fold, folded_terms, tokenize
from storage.text import wikilinks
from storage.text.code import without_code
from storage.vault.markdown import link_spans

MIN_CHARS = 4
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_SPACING = " \t\u00a0-_"


@dataclass(frozen=True, slots=True)
class NoteName:
    """One name of a note: as written, and its terms."""

    name: str
    terms: tuple[str, ...]


def note_names(title: str, fields: Mapping[str, Any]) -> list[NoteName]:
    """The names of a note that a mention may use: its title and aliases, long enough."""
    aliases = fields.get("aliases")
    if isinstance(aliases, str):
        aliases = [aliases]
    candidates = [title, *(str(a) for a in aliases if a)] if isinstance(aliases, list) else [title]
    out: dict[tuple[str, ...], NoteName] = {}
    # Each name read once: a note filed by brainbot has its title among its aliases.
    for name in dict.fromkeys(" ".join(c.split()) for c in candidates):
        folded, words = folded_terms(name)
        terms = tuple(words)
        letters = [c for c in folded if c.isalnum()]
        if not terms or len(letters) < MIN_CHARS or not any(c.isalpha() for c in letters):
            continue
        out.setdefault(terms, NoteName(name, terms))
    return list(out.values())


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    return fold(char)


@lru_cache(maxsize=1024)
def _pattern(name: str) -> re.Pattern[str] | None:
    folded = fold(name)
    words = _WORD.findall(folded)
    if not words:
        return None
    own = {c for c in folded if not c.isalnum() and c != "_"}
    spacing = "[" + re.escape("".join(sorted(own | set(_SPACING)))) + "]{1,4}"
    before = "" if _CJK.match(words[0][0]) else r"(?<!\w)"
    after = "" if _CJK.match(words[-1][-1]) else r"(?!\w)"
    return re.compile(before + spacing.join(re.escape(w) for w in words) + after)


class MentionText:
    """A note's body made ready for finding names in it: its terms (every word, code
    and links included: a quick test of which names may be in it), and, on the first
    look for a name, the body with code and links blanked out, folded, with the way
    back to the body's own offsets."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.terms = frozenset(tokenize(body))
        self._folded: str | None = None
        self._offsets: list[int] | None = None

    def _fold(self) -> str:
        masked = without_code(self.body)
        spans = list(link_spans(masked)) if "[" in masked else []
        if spans:
            chars = list(masked)
            for start, end in spans:
                chars[start:end] = " " * (end - start)
            masked = "".join(chars)
        if masked.isascii():
            return masked.lower()
        pieces: list[str] = []
        offsets: list[int] = []
        for i, char in enumerate(masked):
            folded = _fold_char(char)
            pieces.append(folded)
            offsets.extend([i] * len(folded))
        self._offsets = offsets
        return "".join(pieces)

    def find(self, name: str) -> tuple[int, int] | None:
        """Where `name` is first mentioned in the body (offsets into the body), or None."""
        pattern = _pattern(name)
        if pattern is None:
            return None
        if self._folded is None:
            self._folded = self._fold()
        match = pattern.search(self._folded)
        if match is None:
            return None
        if self._offsets is None:
            return match.start(), match.end()
        return self._offsets[match.start()], self._offsets[match.end() - 1] + 1

    def linked(self, name: str, target: str) -> str | None:
        """The body with the first mention of `name` made a wikilink to the note file
        `target` (`[[Sarah Kim]]`, or `[[Sarah Kim|sarah kim]]` where it is written
        otherwise); None when there is no mention to link."""
        span = self.find(name)
        if span is None:
            return None
        start, end = span
        written = self.body[start:end]
        stem = target.rsplit("/", 1)[-1].removesuffix(".md")
        if any(c in written for c in "[]|\n") or not wikilinks.linkable(stem):
            return None  # a link would change the words or name another note
        return self.body[:start] + wikilinks.link_to(target, written) + self.body[end:]
