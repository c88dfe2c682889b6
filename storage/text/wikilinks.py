"""Wikilinks as Obsidian reads and writes them: the one grammar of `[[links]]` that every
reader and writer in brainbot uses (backlinks, relinking after a move, mentions,
citations, the search syntax, typed relations, note names, what a capture links to).

    [[target]]   [[target#Heading]]   [[target#^block]]   [[target|shown text]]
    ![[embedded]]   [[target\\|shown]] (a table row writes the `|` so)

Reading: a link opens with `[[` (not after a backslash: `\\[[` is escaped text) and ends
at the first `]]`; between them there is no `[`, no `]` and no line break (a link
never spans lines in Obsidian). Its target is what comes before the first `|` or `#`
(a table's `\\` before the `|` is not part of it), its heading what follows the `#`,
its shown text what follows the `|`. An empty target (`[[#Heading]]`) is a link
within the same note.

Writing: a target names a note by its file name (or path) without `.md`, as Obsidian
finds notes; a shown text is added when it differs. Neither may break the link: a line
break becomes a space (in a shown text, so does a run of spaces), a `|` becomes `-` (it
would end the target, and split a table's cell), `[` and `]` become `(` and `)`, and a
target's `#` (it would start a heading) becomes `-`. `linkable` says whether a name can
be linked as it is.

Someone else's text (a fetched page) is made inert with `inert`: every `[[` that could
open a link is escaped, so it shows as written and links nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "SOURCE",
    "WikiLink",
    "find",
    "inert",
    "leading",
    "link_to",
    "linkable",
    "read",
    "targets",
    "unlinked",
    "unlinked_and_links",
    "wikilink",
    "without_embeds",
]

# The grammar, to build larger patterns from (the search syntax, typed relations).
SOURCE = r"(?<!\\)\[\[[^\[\]\n]+\]\]"
_LINK = re.compile(r"(?P<embed>(?<!\\)!)?(?<!\\)\[\[(?P<inner>[^\[\]\n]+)\]\]")
_OPENER = re.compile(r"(?<!\\)(!?)\[\[")
_SHOWN_SAFE = str.maketrans({"|": "-", "[": "(", "]": ")"})
_TARGET_SAFE = str.maketrans({"|": "-", "[": "(", "]": ")", "#": "-"})
_NOT_IN_TARGET = re.compile(r"[\[\]|#\n\r]")


@dataclass(frozen=True, slots=True)
class WikiLink:
    """One wikilink in a text: where it is (`start:end`, `!` and brackets included;
    `inner_start:inner_end`, what the brackets hold) and what it says."""

    start: int
    end: int
    inner_start: int
    inner_end: int
    inner: str  # between the brackets, as written
    embed: bool  # `![[...]]`

    @property
    def _before_bar(self) -> str:
        # A table row writes the separator `\|`: its backslash belongs to neither part.
        return self.inner.partition("|")[0].removesuffix("\\")

    @property
    def target(self) -> str:
        """The note it names, without `#heading` and `|shown text`, spaces trimmed;
        "" for a link within the same note (`[[#Heading]]`)."""
        return self._before_bar.partition("#")[0].strip()

    @property
    def heading(self) -> str | None:
        """What follows the `#` (a heading, or `^block`), or None."""
        _, mark, heading = self._before_bar.partition("#")
        return heading.strip() if mark else None

    @property
    def shown(self) -> str | None:
        """The shown text after the `|`, or None."""
        _, bar, shown = self.inner.partition("|")
        return shown if bar else None

    @property
    def label(self) -> str:
        """What a reader sees: the shown text, else the target."""
        return (self.shown or "").strip() or self.target


def _link(match: re.Match[str]) -> WikiLink:
    return WikiLink(
        match.start(),
        match.end(),
        match.start("inner"),
        match.end("inner"),
        match["inner"],
        bool(match["embed"]),
    )


def find(text: str) -> Iterator[WikiLink]:
    """Every wikilink in `text`, in the order written (code is not looked at here:
    pass `storage.text.code.without_code(text)` where code must not count)."""
    return (_link(match) for match in _LINK.finditer(text))


def read(text: str) -> WikiLink | None:
    """`text` (spaces around it aside) as one whole wikilink, or None."""
    stripped = text.strip()
    match = _LINK.fullmatch(stripped)
    return None if match is None else _link(match)


def leading(text: str) -> WikiLink | None:
    """The wikilink `text` starts with (spaces aside; offsets into the stripped text),
    or None."""
    match = _LINK.match(text.strip())
    return None if match is None else _link(match)


def targets(text: str) -> list[str]:
    """The notes `text` links to, in the order written (links within the note aside)."""
    return [link.target for link in find(text) if link.target]


def unlinked(text: str) -> str:
    """`text` as it reads with its wikilinks shown as their labels (`[[Sarah Kim|Sarah]]`
    reads "Sarah")."""
    return _LINK.sub(lambda match: _link(match).label, text)


def unlinked_and_links(text: str) -> tuple[str, list[WikiLink]]:
    """`text` as `unlinked` shows it, and its wikilinks as `find` gives them (offsets
    into `text`), read in one pass for a reader that needs both."""
    found: list[WikiLink] = []

    def label(match: re.Match[str]) -> str:
        found.append(_link(match))
        return found[-1].label

    return _LINK.sub(label, text), found


def without_embeds(text: str) -> str:
    """`text` without its embeds (`![[photo.jpg]]`): the words a person wrote around
    what they shared."""
    return _LINK.sub(lambda match: "" if match["embed"] else match[0], text)


def inert(text: str) -> str:
    """Someone else's text with every `[[` that could open a link (or an embed)
    escaped: it shows as written and links nowhere, whatever follows it."""
    return _OPENER.sub(lambda match: match[1] + r"\[\[", text)


def linkable(target: str) -> bool:
    """Whether a wikilink can name `target` as it is (no `[`, `]`, `|`, `#` or line
    break in it, and something besides spaces)."""
    return bool(target.strip()) and _NOT_IN_TARGET.search(target) is None


_BREAKS = str.maketrans({"\n": " ", "\r": " "})


def _one_line(text: str, table: dict[int, str]) -> str:
    return " ".join(text.translate(table).split())


def wikilink(target: str, shown: str | None = None, *, embed: bool = False) -> str:
    """`[[target]]`, or `[[target|shown]]` when the shown text differs, or an embed;
    each part made safe for a link (see the module doc). ValueError for a target of
    nothing but spaces."""
    name = target.translate(_TARGET_SAFE).translate(_BREAKS).strip()  # a file's own spaces
    if not name:
        raise ValueError(f"{target!r} names no note to link to")
    label = _one_line(shown or "", _SHOWN_SAFE)
    inner = name if not label or label == name else f"{name}|{label}"
    return ("!" if embed else "") + f"[[{inner}]]"


def link_to(path: str, title: str | None = None) -> str:
    """A link to the note at vault path `path` by its file name (`[[tea]]`), showing
    `title` when that differs (`[[tea|Green tea]]`): Obsidian finds notes by file name."""
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    return wikilink(stem, title)
