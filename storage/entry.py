"""Plain data that storage hands out: entries, changes, search hits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class Author:
    """Who a change is attributed to (the chat user); git author of its commit."""

    name: str
    email: str


BOT_AUTHOR = Author("brainbot", "brainbot@localhost")
# The author of commits that record what people changed by hand (Obsidian, an editor).
OUTSIDE_AUTHOR = Author("edited outside brainbot", "outside@brainbot.local")


@dataclass(frozen=True, slots=True)
class Entry:
    """One Markdown note. `path` is vault-relative with `/` separators, e.g. `ideas/tea.md`."""

    path: str
    category: str  # first folder of the path ("" for a note at the vault's root)
    title: str
    fields: Mapping[str, Any]  # the whole frontmatter: id, created, updated, tags, source, ...
    body: str
    content_hash: str  # sha256 hex of the file's bytes: the token for optimistic edits
    frontmatter_error: str | None = None  # set when the YAML could not be parsed
    # Set when the file is not UTF-8: the text holds U+FFFD for the bad bytes, and the
    # vault refuses to rewrite it (only moves and deletes it, byte for byte).
    encoding_error: str | None = None

    @property
    def id(self) -> str:
        return str(self.fields.get("id") or self.path)

    @property
    def tags(self) -> tuple[str, ...]:
        raw = self.fields.get("tags") or ()
        if isinstance(raw, str):
            raw = [raw]
        return tuple(str(t) for t in raw) if isinstance(raw, list | tuple) else ()

    @property
    def status(self) -> str | None:
        value = self.fields.get("status")
        return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class Change:
    """One commit in the vault's history."""

    commit: str
    operation: str  # create | update | move | delete | undo | import | digest | edit (outside)
    paths: tuple[str, ...]
    message: str
    author: str
    when: datetime
    parent: str | None = None  # its first parent (None: the vault's first commit)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One note a search found. `snippet` is plain text (for a model, a listing);
    `passage` is the same stretch with the query's words marked `**like this**`, and
    `matched` says which side of a hybrid search found it: "words" (BM25), "meaning"
    (vectors) or "both"; both are empty where nothing was matched (a filter listing,
    backlinks), so a person can see why a note came up."""

    path: str
    title: str
    category: str
    snippet: str
    score: float
    updated: datetime | None = None
    matched: str = ""
    passage: str = ""


@dataclass(frozen=True, slots=True)
class Backlink(SearchHit):
    """A note linking to another, with the types of its links to it (`works_at` for
    `- works_at [[Acme]]`); empty when every link to it is a plain one."""

    relations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResults:
    hits: tuple[SearchHit, ...]
    mode: str  # "hybrid" | "keyword" (no embeddings configured) | "filter" (no words)
    notes: tuple[str, ...] = field(default=())  # e.g. "keyword search only: no embeddings"
    # When a filter left nothing, what to tell the person: "No notes tagged #garden."
    empty: str | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """What one vault write produced: the entry as now on disk (None after a delete or
    for an attachment), the commit that recorded it, and the paths of the files kept
    under `attachments/` with it, in the order they were given."""

    entry: Entry | None
    change: Change
    attachments: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Preview:
    """A unified diff of what a write would do, and the content hash it was computed on:
    pass that hash back as `expected_hash` so the write fails if the file changed since."""

    diff: str
    content_hash: str | None
    target: str | None = None  # where a move or rename puts the note
    relinked: tuple[str, ...] = ()  # other notes whose links a move or rename rewrites


@dataclass(frozen=True, slots=True)
class ChangedPaths:
    """Markdown paths that differ between a commit and the vault as it is now."""

    changed: tuple[str, ...]  # added or modified (committed or not)
    deleted: tuple[str, ...]
    head: str | None  # HEAD when computed: the next sync starts from here
    skipped: tuple[tuple[str, str], ...] = ()  # (path, why): looks like a note, left out


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The outcome of importing a folder: one commit (None when nothing was new)."""

    written: Written | None
    imported: tuple[str, ...]  # Markdown notes, vault-relative
    skipped: tuple[tuple[str, str], ...]  # (source-relative path, reason)
    copied: tuple[str, ...] = ()  # other files (images, PDFs) kept at their relative path
    warnings: tuple[tuple[str, str], ...] = ()  # imported, but e.g. broken frontmatter
