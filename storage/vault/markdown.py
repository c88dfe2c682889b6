"""What a link in a note looks like: the links that backlinks
(storage.index.note_links), relinking after a move (storage.vault.relink) and unlinked
mentions (storage.index.mention_names) read. Nothing in code is a link, as in Obsidian
(storage.text.code says what code is).

A link is a wikilink, `[[target#heading|shown]]` (also an `![[embed]]`: the grammar is
storage.text.wikilinks'), or a Markdown link, `[text](target "title")`, whose target may be
`<in angle brackets>`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from storage.text import wikilinks
from storage.text.code import without_code

# A link's text and target stop at the next `[` (and an <angle> target at the next
# `<`): each try then reads only up to where the next one starts, so a line of
# ten thousand `[a](` is read in one pass, not once per bracket.
_MDLINK = re.compile(
    r"\[[^\[\]\n]*\]\(\s*(<[^<>\n]+>|[^)\s\[]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True, slots=True)
class LinkAt:
    """One link in a text: its kind, and where its target part is (inside `[[ ]]`, or
    inside `( )` without the title), so a move can rewrite just that part."""

    kind: Literal["wiki", "markdown"]
    start: int
    end: int
    target: str
    wiki: wikilinks.WikiLink | None = None  # a wikilink as read, for its parts

    @property
    def wiki_name(self) -> str:
        """A wikilink's note name, without `#heading`, `|shown text` or a table's `\\|`."""
        return "" if self.wiki is None else self.wiki.target


def links(text: str, masked: str | None = None) -> Iterator[LinkAt]:
    """Every link outside code, wikilinks first, each in the order written; `masked`
    is `without_code(text)` when the caller has it already."""
    masked = without_code(text) if masked is None else masked
    for link in wikilinks.find(masked):
        start, end = link.inner_start, link.inner_end
        written = replace(link, inner=text[start:end])  # code inside a link is kept
        yield LinkAt("wiki", start, end, written.inner, written)
    for match in _MDLINK.finditer(masked):
        yield LinkAt("markdown", match.start(1), match.end(1), text[match.start(1) : match.end(1)])


def link_spans(masked: str) -> Iterator[tuple[int, int]]:
    """Where every link is, whole (`[[…]]`, `[text](target)`), in a text whose code is
    blanked out (`without_code`): the stretches a mention of a name must not be
    looked for in."""
    for link in wikilinks.find(masked):
        yield link.start, link.end
    for match in _MDLINK.finditer(masked):
        yield match.start(), match.end()
