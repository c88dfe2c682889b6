"""Keeping links true when a note moves or is renamed, by Obsidian's rules.

A link is resolved the way Obsidian resolves it, against the vault's note paths:

- `[[target]]` (also `[[target.md]]`, `[[target#Heading|shown]]`, `![[target]]`): a
  vault path (`[[ideas/tea]]`) wins; else the notes whose file name is the target's
  last part, case-insensitively, and whose path ends with the whole target when it
  names folders. Of several, the one in the linking note's folder, else the one with
  the fewest folders, then the first by path (Obsidian leaves that case unspecified).
- `[text](../ideas/tea.md "title")` (URL-encoded, or `<ideas/my tea.md>`): relative to
  the linking note, else from the vault root; `/ideas/tea.md` from the root.

When a note moves, every link that meant it must still mean it, and every other link
must still mean what it meant. A link that already does is left byte for byte; one
that does not is rewritten: a wikilink to the shortest path that names the note
unambiguously (its bare name when that is unique: what Obsidian writes by default),
keeping `!`, `#heading`/`#^block`, `|shown text` and a `.md` it had; a Markdown link
to the path from the linking note (or from the root, if it was written so), keeping
its text, title, `#heading` and `<...>` or %-encoded form. Code is not a link.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from storage.vault.markdown import SCHEME, LinkAt, links

_ENCODED_NON_ASCII = re.compile(r"%[89a-fA-F][0-9a-fA-F]")
# What a bare Markdown link target cannot hold as it is.
_ESCAPED = {c: quote(c) for c in " %()<>[]#?\t"}


def _stem(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


class Notes:
    """The vault's note paths, looked up as Obsidian looks them up."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = frozenset(paths)
        self._by_lower = {p.lower(): p for p in sorted(self.paths)}
        self._by_name: dict[str, list[str]] = {}
        for path in sorted(self.paths):
            name = posixpath.basename(_stem(path)).lower()
            self._by_name.setdefault(name, []).append(path)

    def replaced(self, old: str, new: str) -> Notes:
        """These notes after the one at `old` is moved to `new`."""
        return Notes((self.paths - {old}) | {new})

    def wikilink(self, target: str, source: str) -> str | None:
        """The note `[[target]]` means in the note at `source` (None: no such note)."""
        return self.wikilink_choice(target, source)[0]

    def wikilink_choice(self, target: str, source: str) -> tuple[str | None, bool]:
        """`wikilink`, and whether it was a pick among several notes of that name."""
        base = _stem(target.strip().strip("/"))
        if not base:
            return None, False
        if base.startswith(("./", "../")):
            base = posixpath.normpath(posixpath.join(posixpath.dirname(source), base))
        exact = self._by_lower.get(base.lower() + ".md")
        if exact is not None:
            return exact, False
        found = self._by_name.get(posixpath.basename(base).lower(), [])
        if "/" in base:
            tail = "/" + base.lower()
            found = [p for p in found if _stem(p).lower().endswith(tail)]
        if len(found) <= 1:
            return (found[0] if found else None), False
        folder = posixpath.dirname(source)
        near = [p for p in found if posixpath.dirname(p) == folder]
        return (near[0] if near else min(found, key=lambda p: (p.count("/"), p))), True

    def markdown(self, target: str, source: str) -> tuple[str, str] | None:
        """The note a Markdown link's path (decoded, no `#part`) means in the note at
        `source`, and how it was written: "relative", "root" or "absolute"."""
        if not target or SCHEME.match(target) or not target.lower().endswith(".md"):
            return None
        if target.startswith("/"):
            found = self._by_lower.get(posixpath.normpath(target.lstrip("/")).lower())
            return (found, "absolute") if found else None
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
        found = None if joined.startswith("..") else self._by_lower.get(joined.lower())
        if found is not None:
            return found, "relative"
        found = self._by_lower.get(posixpath.normpath(target).lower())
        return (found, "root") if found else None

    def shortest_link(self, path: str) -> str:
        """The shortest `[[...]]` target (no `.md`) that means the note at `path` and no
        other: its name when that is unique, else as many folders as it takes."""
        parts = _stem(path).split("/")
        for count in range(1, len(parts)):
            candidate = "/".join(parts[-count:])
            # Exact paths win resolution: a shorter path naming another note is not it.
            if self._by_lower.get(candidate.lower() + ".md", path) != path:
                continue
            tail = "/" + candidate.lower()
            same = [
                p
                for p in self._by_name.get(parts[-1].lower(), [])
                if p == path or _stem(p).lower().endswith(tail)
            ]
            if same == [path]:
                return candidate
        return _stem(path)


@dataclass(frozen=True, slots=True)
class Relocation:
    """One note moving from `old` to `new` among `before` (the vault's notes now)."""

    old: str
    new: str
    before: Notes

    @property
    def after(self) -> Notes:
        return self.before.replaced(self.old, self.new)


def relinked(text: str, source: str, move: Relocation, after: Notes | None = None) -> str:
    """`text` of the note at `source` (its path before the move) with every link that
    the move would break rewritten (see the module doc); the same text when none is."""
    after = after or move.after
    source_after = move.new if source == move.old else source
    edits: list[tuple[int, int, str]] = []
    for link in links(text):
        edit = (_wikilink_edit if link.kind == "wiki" else _markdown_edit)(
            link, source, source_after, move, after
        )
        if edit is not None:
            edits.append((link.start, link.end, edit))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _wikilink_edit(
    link: LinkAt, source: str, source_after: str, move: Relocation, after: Notes
) -> str | None:
    """The new target part of a wikilink the move breaks; None when it still holds."""
    target, bar, shown = link.target.partition("|")
    if target.endswith("\\"):  # `[[tea\|shown]]` inside a table
        target, bar = target[:-1], "\\|"
    name, hash_, part = target.partition("#")
    meant = move.before.wikilink(name, source)
    if meant is None:
        return None
    wanted = move.new if meant == move.old else meant
    now, picked = after.wikilink_choice(name, source_after)
    # A link to the moved note that names it only by luck gets a path that is sure.
    if now == wanted and not (picked and meant == move.old):
        return None
    new_name = after.shortest_link(wanted)
    if name.strip().lower().endswith(".md"):
        new_name += ".md"
    return new_name + hash_ + part + bar + shown


def _markdown_edit(
    link: LinkAt, source: str, source_after: str, move: Relocation, after: Notes
) -> str | None:
    """The new target part of a Markdown link the move breaks; None when it holds."""
    raw = link.target
    bracketed = raw.startswith("<")
    path, hash_, part = (raw[1:-1] if bracketed else raw).partition("#")
    decoded = path if bracketed else unquote(path)
    found = move.before.markdown(decoded, source)
    if found is None:
        return None
    meant, form = found
    wanted = move.new if meant == move.old else meant
    if (after.markdown(decoded, source_after) or ("", ""))[0] == wanted:
        return None
    if form == "relative":
        new_path = posixpath.relpath(wanted, posixpath.dirname(source_after) or ".")
    else:
        new_path = ("/" if form == "absolute" else "") + wanted
    if bracketed:
        return f"<{new_path}{hash_}{part}>"
    if _ENCODED_NON_ASCII.search(path):
        new_path = quote(new_path, safe="/")
    else:
        new_path = "".join(_ESCAPED.get(c, c) for c in new_path)
    return new_path + hash_ + part
