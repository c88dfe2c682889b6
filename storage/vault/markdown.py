"""Where a note's Markdown is code, and what a link in it looks like: the one grammar
that backlinks (storage.index.links), relinking after a move (storage.vault.relink)
and a note's title (storage.vault.notefile) read.

Code is a fenced block (``` or ~~~, indented up to three spaces, to its closing fence
or the end of the note), inline code (`like this`), or an indented code block: lines
indented four spaces or a tab after a blank line, unless they continue a list (a
nested list item is no code). Nothing in code is a link, as in Obsidian.

A link is a wikilink, `[[target#heading|shown]]` (also an `![[embed]]`), or a
Markdown link, `[text](target "title")`, whose target may be `<in angle brackets>`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

# Possessive runs: a line of 100,000 backticks is one failed try, not one per length.
_FENCE = re.compile(
    r"^[ \t]{0,3}(`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^[ \t]{0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S
)
_TICKS = re.compile(r"`+")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
# A link's text and target stop at the next `[` (and an <angle> target at the next
# `<`): each try then reads only up to where the next one starts, so a line of
# ten thousand `[a](` or `[[` is read in one pass, not once per bracket.
_MDLINK = re.compile(
    r"\[[^\[\]\n]*\]\(\s*(<[^<>\n]+>|[^)\s\[]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def without_code(text: str) -> str:
    """`text` with every kind of code blanked out, the same length, so that what is
    looked for in it is found where it is not code and at the same offsets."""
    text = _FENCE.sub(_blank, text)
    text = _indented_blanked(text)
    return _inline_code_blanked(text) if "`" in text else text


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def _inline_code_blanked(text: str) -> str:
    """`text` with its code spans blanked: a run of backticks opens one, closed by the
    next run of the same length on the line (CommonMark's rule, within one line).
    Each run is looked at once, where a pattern would read on from every backtick."""
    chars = list(text)
    for line in re.finditer(r"[^\n]*`[^\n]*", text):
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, line.start(), line.end())]
        following: list[int | None] = [None] * len(runs)
        last: dict[int, int] = {}  # run length → the index of the nearest such run after
        for n in range(len(runs) - 1, -1, -1):
            length = runs[n][1] - runs[n][0]
            following[n] = last.get(length)
            last[length] = n
        n = 0
        while n < len(runs):
            closer = following[n]
            if closer is None:
                n += 1  # no closing run: these backticks are plain text
                continue
            start, end = runs[n][0], runs[closer][1]
            chars[start:end] = " " * (end - start)
            n = closer + 1
    return "".join(chars)


def _indented_blanked(text: str) -> str:
    lines = text.split("\n")
    in_code = False
    in_list = False  # the lines since the last blank line belong to a list
    after_blank = True
    for n, line in enumerate(lines):
        blank = not line.strip()
        if in_code and (blank or _INDENTED.match(line)):
            lines[n] = " " * len(line)
            continue
        in_code = False
        if blank:
            after_blank = True
            continue
        if after_blank and _INDENTED.match(line) and not in_list:
            in_code = True
            lines[n] = " " * len(line)
            continue
        if _LIST_ITEM.match(line):
            in_list = True
        elif after_blank and not _INDENTED.match(line):
            in_list = False
        after_blank = False
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class LinkAt:
    """One link in a text: its kind, and where its target part is (inside `[[ ]]`, or
    inside `( )` without the title), so a move can rewrite just that part."""

    kind: Literal["wiki", "markdown"]
    start: int
    end: int
    target: str

    @property
    def wiki_name(self) -> str:
        """A wikilink's note name, without `#heading`, `|shown text` or a table's `\\|`."""
        name = self.target.partition("|")[0].partition("#")[0]
        return name.removesuffix("\\")


def links(text: str, masked: str | None = None) -> Iterator[LinkAt]:
    """Every link outside code, wikilinks first, each in the order written; `masked`
    is `without_code(text)` when the caller has it already."""
    masked = without_code(text) if masked is None else masked
    for match in _WIKILINK.finditer(masked):
        yield LinkAt("wiki", match.start(1), match.end(1), text[match.start(1) : match.end(1)])
    for match in _MDLINK.finditer(masked):
        yield LinkAt("markdown", match.start(1), match.end(1), text[match.start(1) : match.end(1)])


def link_spans(masked: str) -> Iterator[tuple[int, int]]:
    """Where every link is, whole (`[[…]]`, `[text](target)`), in a text whose code is
    blanked out (`without_code`): the stretches a mention of a name must not be
    looked for in."""
    for pattern in (_WIKILINK, _MDLINK):
        for match in pattern.finditer(masked):
            yield match.start(), match.end()
