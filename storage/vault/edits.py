"""What a note's bytes become after an update or a move (entries are read from bytes
by storage.vault.notefile, the file's format).

Pure functions: the vault decides where and when to write what they return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from storage.errors import (
    BrokenFrontmatter,
    NothingToChange,
    StaleEdit,
    StorageError,
)
from storage.vault import schema
from storage.vault.files import read_regular
from storage.vault.notefile import (
    content_hash,
    decode_note,
    join_note,
    parse_note,
    plain,
    render_note,
)


def updated_note(
    rel: str,
    old: bytes,
    fields: Mapping[str, Any] | None,
    body: str | None,
    remove_fields: Sequence[str],
) -> bytes:
    """The note with fields set (None clears one; instants become the note's wall
    time) and removed (except the managed `id`, `created`, `updated`), the body
    replaced if given, and `updated` bumped. NothingToChange if that is what it
    already holds; BrokenFrontmatter for fields on unparsable YAML, whose block is
    otherwise kept verbatim."""
    parsed = parse_note(decode_note(old, rel))
    if parsed.error is not None:
        if fields or remove_fields:
            raise BrokenFrontmatter(rel, parsed.error)
        if body is None or body == parsed.body:
            raise NothingToChange(rel)
        if parsed.raw_frontmatter is None:
            return (body + "\n").encode("utf-8")
        return join_note(parsed.raw_frontmatter, body).encode("utf-8")
    new_fields = dict(parsed.fields)
    zone = schema.note_zone(parsed.fields)
    for name, value in schema.local_values(fields or {}, zone).items():
        if name in schema.MANAGED_FIELDS:
            continue
        if value is None:
            # Setting nothing clears the property rather than writing `null`; a `null`
            # already written (by hand, or by an older brainbot) is left as it is.
            if new_fields.get(name) is not None:
                new_fields.pop(name, None)
            continue
        new_fields[name] = value
    for name in remove_fields:
        if name not in schema.MANAGED_FIELDS:
            new_fields.pop(name, None)
    new_body = parsed.body if body is None else body
    if plain(new_fields) == plain(parsed.fields) and new_body == parsed.body:
        raise NothingToChange(rel)
    new_fields["updated"] = schema.wall_time(schema.now_utc(), zone)
    return render_note(new_fields, new_body).encode("utf-8")


def moved_note(rel: str, old: bytes, old_category: str, category: str) -> bytes:
    """The note's bytes in its new category: fields follow the new schema. A note that
    cannot be parsed (not UTF-8, broken frontmatter) moves byte for byte."""
    try:
        parsed = parse_note(decode_note(old, rel))
    except StorageError:
        return old
    if parsed.error is not None:
        return old
    moved = schema.moved_fields(parsed.fields, old_category, category, schema.now_utc())
    return render_note(moved, parsed.body).encode("utf-8")


def read_note(rel: str, full: Path, limit: int | None, expected_hash: str | None = None) -> bytes:
    """A note's bytes, at most `limit` of them (EntryTooLarge past it; NotAFile for a
    pipe or device, see storage.vault.files), checked against the hash the caller saw
    (StaleEdit when the note changed since)."""
    data = read_regular(full, rel, limit)
    if expected_hash is not None and content_hash(data) != expected_hash:
        raise StaleEdit(rel, expected_hash, content_hash(data))
    return data
