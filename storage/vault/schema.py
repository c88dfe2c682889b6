"""Frontmatter per category, entry ids, and slug file names.

Properties are written the way Obsidian's property types read them: text, lists,
dates `YYYY-MM-DD` and date-times `YYYY-MM-DDTHH:mm:ss` (local wall time, no offset),
nothing nested, nothing empty. A note's wall times are in its `timezone` property
(an IANA name, written once when the note is made); a note without one (made before,
or by hand) keeps the old reading: an offset where written, else UTC.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage.text.person_names import is_person_name
from storage.vault.paths import windows_safe

# Fields every entry carries, in the order they are written (empty ones are left out).
COMMON_FIELDS = ("id", "title", "aliases", "created", "updated", "timezone", "tags")
# Where a note came from is flat `source_<key>` properties (Obsidian shows no nested
# values); older notes hold one `source:` mapping, still read (`note_source`).
SOURCE_PREFIX = "source_"
ZONE_FIELD = "timezone"
# Fields the vault maintains itself: an update cannot set them.
MANAGED_FIELDS = frozenset({"id", "created", "updated"})
# A `status` that closes a note: no digest lists it, no reminder is sent for it.
CLOSED_STATUSES = ("done", "cancelled", "canceled", "archived", "dropped", "complete", "completed")

# The categories a vault starts with (BRAINBOT_CATEGORIES may name others; the inbox is
# always one): the folders of people, projects, ideas, errands and what is not yet filed.
PEOPLE, PROJECTS, IDEAS, ADMIN, INBOX = "people", "projects", "ideas", "admin", "inbox"
DEFAULT_CATEGORIES = (PEOPLE, PROJECTS, IDEAS, ADMIN, INBOX)
# The categories whose notes are names a capture may mention (a timeline line goes on
# them, bot.connect.timeline); the index counts changes to their rows (names_mark).
NAMED = (PEOPLE, PROJECTS)
# Category-specific fields and their defaults (a fresh list per entry for list fields).
CATEGORY_FIELDS: Mapping[str, Mapping[str, Any]] = {
    PROJECTS: {"status": None, "next_action": None, "due": None},
    PEOPLE: {"context": None, "follow_ups": [], "last_touched": None},
    ADMIN: {"due": None, "status": None},
    IDEAS: {},
    INBOX: {"original_text": None, "suggested_category": None, "confidence": None},
}

SLUG_MAX_CHARS = 60
_NOT_WORD = re.compile(r"[^\w]+|_+")


def new_id() -> str:
    """A short unique entry id: 12 hex digits (48 random bits)."""
    return secrets.token_hex(6)


def now_utc() -> datetime:
    """The current time in UTC, to the second (`wall_time` makes it a property value)."""
    return datetime.now(UTC).replace(microsecond=0)


def note_zone(fields: Mapping[str, Any]) -> ZoneInfo | None:
    """The zone a note's wall times are in: its `timezone` property; None when it has
    none or names no zone (its times then read as before: offset, else UTC)."""
    name = fields.get(ZONE_FIELD)
    if not isinstance(name, str) or not name.strip():
        return None
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None


def wall_time(moment: datetime, zone: tzinfo | None) -> datetime:
    """An instant as the note writes it: wall time without offset in the note's zone
    (UTC for a note without one), as Obsidian's date-time property reads it."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(zone or UTC).replace(tzinfo=None)


def zone_name(zone: tzinfo | None) -> str | None:
    """The IANA name a note records for `zone` (None for a zone without one)."""
    key = getattr(zone, "key", None)
    return key if isinstance(key, str) else None


def local_values(values: Mapping[str, Any], zone: tzinfo | None) -> dict[str, Any]:
    """Values about to be written, with instants (`remind: <aware datetime>`) turned
    into the note's wall time; a note without a zone keeps the offset, since its
    local times are read in the person's zone (scheduler.reminders)."""
    if zone is None:
        return dict(values)
    return {
        name: wall_time(value, zone) if isinstance(value, datetime) else value
        for name, value in values.items()
    }


def is_empty(value: object) -> bool:
    """A value a new property is not written for (`null`, "", [], {})."""
    return value is None or (isinstance(value, str | list | tuple | dict) and not value)


def source_fields(source: object) -> dict[str, Any]:
    """Where a note came from as flat properties: `{"platform": "slack"}` becomes
    `source_platform: slack`; anything else (a link) stays one `source` property."""
    if not isinstance(source, Mapping):
        return {} if is_empty(source) else {"source": source}
    return {
        f"{SOURCE_PREFIX}{key}": value
        for key, value in source.items()
        if not is_empty(value) and not isinstance(value, Mapping | list | tuple)
    }


def note_source(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Where a note came from, from flat `source_*` properties or an older note's
    `source:` mapping, as one mapping (`{"platform": "slack", ...}`)."""
    old = fields.get("source")
    out: dict[str, Any] = dict(old) if isinstance(old, Mapping) else {}
    for name, value in fields.items():
        if isinstance(name, str) and name.startswith(SOURCE_PREFIX):
            out[name.removeprefix(SOURCE_PREFIX)] = value
    return out


def with_aliases(fields: Mapping[str, Any], stem: str) -> dict[str, Any]:
    """`fields` for a note whose file is named `stem`: its title is added to `aliases`
    (right after `title`) when the file name differs from it, so Obsidian's note
    list and link suggestions show the title; kept as they are otherwise."""
    title = fields.get("title")
    have = normalise_tags(fields.get("aliases"))
    # Obsidian finds links whatever their case: an alias differing in case only is noise.
    if not isinstance(title, str) or stem.casefold() == title.casefold() or title in have:
        return dict(fields)
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if name != "aliases":
            out[name] = value
        if name == "title":
            out["aliases"] = [*have, title]
    return out


def with_alias(fields: Mapping[str, Any], name: str, *, unless: str = "") -> dict[str, Any]:
    """`fields` with `name` added to `aliases` (right after `title`), unless it is there
    already or is `unless` (the new title of a renamed note), case aside."""
    have = normalise_tags(fields.get("aliases"))
    taken = {a.casefold() for a in have} | {unless.casefold()}
    if not name.strip() or name.casefold() in taken:
        return dict(fields)
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key != "aliases":
            out[key] = value
        if key == "title":
            out["aliases"] = [*have, name]
    if "aliases" not in out:
        out["aliases"] = [*have, name]
    return out


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
    if category == PEOPLE and is_person_name(title):
        return windows_safe(unicodedata.normalize("NFC", title))
    return entry_slug(title)


@dataclass(frozen=True, slots=True)
class NewNote:
    """A new entry as it is filed: its frontmatter and its file name without `.md`."""

    fields: dict[str, Any]
    stem: str


def new_note(
    category: str,
    title: str,
    body: str,
    fields: Mapping[str, Any] | None,
    source: Mapping[str, Any] | str | None,
    zone: tzinfo | None = None,
) -> NewNote:
    """A new entry's frontmatter, stamped now (`new_entry_fields`), and its file name
    (`entry_stem`), its title the given one or the body's first words (`entry_title`):
    decided here at once, where the rules for each are."""
    title = entry_title(title, body)
    new_fields = new_entry_fields(category, title, fields, source, now_utc(), zone)
    return NewNote(new_fields, entry_stem(category, title))


def new_entry_fields(
    category: str,
    title: str,
    fields: Mapping[str, Any] | None,
    source: Mapping[str, Any] | str | None,
    when: datetime,
    zone: tzinfo | None = None,
) -> dict[str, Any]:
    """Frontmatter for a new entry: common fields first, then the category's schema,
    then any extra fields the caller gave; only those that hold something. Times are
    wall times in `zone` (recorded as `timezone`), or in UTC without one."""
    given = dict(fields or {})
    for managed in (*MANAGED_FIELDS, ZONE_FIELD):
        given.pop(managed, None)
    tags = given.pop("tags", None)
    given.pop("title", None)
    given_source = given.pop("source", None)
    recorded = zone_name(zone)
    # A zone with no IANA name cannot be recorded, so its wall times would be misread.
    zone = zone if recorded else None
    out: dict[str, Any] = {
        "id": new_id(),
        "title": title,
        "created": wall_time(when, zone),
        "updated": wall_time(when, zone),
        ZONE_FIELD: recorded,
        "tags": normalise_tags(tags),
        **source_fields(given_source if source is None else source),
    }
    for name, default in category_defaults(category).items():
        out[name] = given.pop(name, default)
    out.update(given)
    values = local_values(out, zone)
    return {name: value for name, value in values.items() if not is_empty(value)}


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
    """Frontmatter after a move: the new category's fields that have a default are
    added (none is written empty); the old category's own fields are dropped only
    when they hold nothing, except the inbox's (`original_text`, `suggested_category`,
    `confidence`), always dropped."""
    new_schema = category_defaults(new_category)
    old_only = set(CATEGORY_FIELDS.get(old_category, {})) - set(new_schema)
    # The inbox's fields describe a guess that filing the note settles.
    settled = old_only if old_category == INBOX else set()
    out = {
        name: value
        for name, value in fields.items()
        if name not in settled and not (name in old_only and value in (None, "", [], {}))
    }
    for name, default in new_schema.items():
        if not is_empty(default):
            out.setdefault(name, default)
    out["updated"] = wall_time(when, note_zone(fields))
    return out
