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


@dataclass(frozen=True, slots=True)
class SearchHit:
    path: str
    title: str
    category: str
    snippet: str
    score: float
    updated: datetime | None = None


@dataclass(frozen=True, slots=True)
class SearchResults:
    hits: tuple[SearchHit, ...]
    mode: str  # "hybrid" | "keyword" (no embeddings configured) | "vector"
    notes: tuple[str, ...] = field(default=())  # e.g. "keyword search only: no embeddings"
