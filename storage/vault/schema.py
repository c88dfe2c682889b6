"""Frontmatter per category, entry ids, and slug file names."""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from storage.vault.paths import windows_safe

# Fields every entry carries, in the order they are written.
COMMON_FIELDS = ("id", "title", "created", "updated", "tags", "source")
# Fields the vault maintains itself: an update cannot set them.
MANAGED_FIELDS = frozenset({"id", "created", "updated"})
# A `status` that closes a note: no digest lists it, no reminder is sent for it.
CLOSED_STATUSES = ("done", "cancelled", "canceled", "archived", "dropped", "complete", "completed")

# Category-specific fields and their defaults (a fresh list per entry for list fields).
CATEGORY_FIELDS: Mapping[str, Mapping[str, Any]] = {
    "projects": {"status": None, "next_action": None, "due": None},
    "people": {"context": None, "follow_ups": [], "last_touched": None},
    "admin": {"due": None, "status": None},
    "ideas": {},
    "inbox": {"original_text": None, "suggested_category": None, "confidence": None},
}

SLUG_MAX_CHARS = 60
_NOT_WORD = re.compile(r"[^\w]+|_+")
# One to four capitalised words: "Sarah Kim", "Jean-Luc Picard", "Zoë O'Neill".
_PERSON_NAME = re.compile(r"[^\W\d_a-z][\w'\u2019-]*(?: [^\W\d_a-z][\w'\u2019-]*){0,3}")


def new_id() -> str:
    """A short unique entry id: 12 hex digits (48 random bits)."""
    return secrets.token_hex(6)


def now_utc() -> datetime:
    """The current time in UTC, to the second, as written into `created`/`updated`."""
    return datetime.now(UTC).replace(microsecond=0)


def category_defaults(category: str) -> dict[str, Any]:
    """The category's own fields with their defaults (none for an unknown category)."""
    return {
        name: list(default) if isinstance(default, list) else default
        for name, default in CATEGORY_FIELDS.get(category, {}).items()
    }


def slugify(text: str, max_chars: int = SLUG_MAX_CHARS) -> str:
    """A file-name slug: lowercase words of any script joined by hyphens, at most
    `max_chars` long (cut at a word boundary when there is one); "" if nothing is left."""
    text = unicodedata.normalize("NFKC", text).lower()
    slug = _NOT_WORD.sub("-", text).strip("-")
    if len(slug) <= max_chars:
        return slug
    cut = slug[: max_chars + 1]
    boundary = cut.rfind("-")
    cut = cut[:boundary] if boundary >= max_chars // 2 else cut[:max_chars]
    return cut.strip("-")


def entry_title(title: str, body: str) -> str:
    """The title for a new entry: the given one, else the body's first words, else "Untitled"."""
    if title.strip():
        return title
    first_line = next((ln for ln in body.splitlines() if ln.strip()), "")
    words = first_line.strip().lstrip("#").split()
    return " ".join(words[:10]) or "Untitled"


def entry_slug(title: str) -> str:
    """The file-name slug for a new entry's title ("untitled" when nothing usable is left)."""
    return windows_safe(slugify(title) or "untitled")


def entry_stem(category: str, title: str) -> str:
    """A new entry's file name without `.md`: a person's note is named like the person
    ("Sarah Kim.md", so Obsidian's [[Sarah Kim]] finds it); everything else gets a slug."""
    if category == "people" and _PERSON_NAME.fullmatch(title):
        return windows_safe(unicodedata.normalize("NFC", title))
    return entry_slug(title)


def new_entry_fields(
    category: str,
    title: str,
    fields: Mapping[str, Any] | None,
    source: Mapping[str, Any] | str | None,
    when: datetime,
) -> dict[str, Any]:
    """Frontmatter for a new entry: common fields first, then the category's schema
    (defaults filled in), then any extra fields the caller gave, all kept."""
    given = dict(fields or {})
    for managed in MANAGED_FIELDS:
        given.pop(managed, None)
    tags = given.pop("tags", None)
    out: dict[str, Any] = {
        "id": new_id(),
        "title": title,
        "created": when,
        "updated": when,
        "tags": normalise_tags(tags),
        "source": dict(source) if isinstance(source, Mapping) else source,
    }
    given.pop("title", None)
    if "source" in given and source is None:
        out["source"] = given.pop("source")
    given.pop("source", None)
    for name, default in category_defaults(category).items():
        out[name] = given.pop(name, default)
    out.update(given)
    return out


def normalise_tags(tags: object) -> list[Any]:
    """Tags as a list: a single string becomes a one-item list, None an empty one."""
    if tags is None:
        return []
    if isinstance(tags, str):
        return [tags]
    if isinstance(tags, Sequence):
        return list(tags)
    return [tags]


def moved_fields(
    fields: Mapping[str, Any], old_category: str, new_category: str, when: datetime
) -> dict[str, Any]:
    """Frontmatter after a move: the new category's fields are added with defaults;
    the old category's own fields are dropped only when they hold nothing, except the
    inbox's (`original_text`, `suggested_category`, `confidence`), always dropped."""
    new_schema = category_defaults(new_category)
    old_only = set(CATEGORY_FIELDS.get(old_category, {})) - set(new_schema)
    # The inbox's fields describe a guess that filing the note settles.
    settled = old_only if old_category == "inbox" else set()
    out = {
        name: value
        for name, value in fields.items()
        if name not in settled and not (name in old_only and value in (None, "", [], {}))
    }
    for name, default in new_schema.items():
        out.setdefault(name, default)
    out["updated"] = when
    return out
