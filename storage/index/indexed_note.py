"""What the index stores for one note, computed from the Entry in Python: terms for
BM25, passages to embed, links, and the frontmatter as JSON that reads back as
the same Python values (dates stay dates)."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from storage.entry import Entry
from storage.index.chunking import Chunk, chunk_note
from storage.index.mention_names import NoteName, note_names
from storage.index.note_links import Link, extract_links
from storage.index.storable import refusal, storable_entry
from storage.index.tokens import fold, note_terms
from storage.text.tags import note_tags
from storage.vault.notefile import NoteDates, note_dates
from storage.vault.schema import SOURCE_PREFIX, ZONE_FIELD

# Fields that say nothing about a note's subject; everything else is searchable text.
_NOT_SEARCHABLE = frozenset(
    {"id", "title", "created", "updated", ZONE_FIELD, "source", "confidence", "suggested_category"}
)
TSV_CHARS = 400_000  # Postgres refuses a tsvector over 1 MB


@dataclass(frozen=True, slots=True)
class Document:
    """One note ready for the index."""

    entry: Entry
    updated: datetime
    created: datetime | None  # the note's `created` field, for "what did I file yesterday"
    due: date | None  # its `due` day (storage.vault.notefile.NoteDates)
    fields_json: str
    tags: list[str]
    terms: Counter[str]
    length: int
    folded: str  # lower-cased, accent-folded text for the `simple` tsvector
    chunks: list[Chunk]
    links: list[Link]
    names: list[NoteName]  # what a mention of it may say (storage.index.mention_names)


def _field_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return " ".join(_field_text(v) for v in value)
    if isinstance(value, Mapping):
        return " ".join(_field_text(v) for v in value.values())
    return ""


def searchable_text(entry: Entry) -> str:
    """Title (twice: a word in the title says more than one in the body), the subject
    fields (tags, next action, context...) and the body."""
    fields = " ".join(
        _field_text(v)
        for k, v in entry.fields.items()
        if str(k) not in _NOT_SEARCHABLE and not str(k).startswith(SOURCE_PREFIX)
    )
    return f"{entry.title}\n{entry.title}\n{fields}\n{entry.body}"


def updated_at(entry: Entry, fallback: datetime | None = None) -> datetime:
    """When the note last changed: its `updated` field, else `created`, else `fallback`
    (the file's modification time), else now."""
    return _last_change(note_dates(entry.fields), fallback)


def _last_change(dates: NoteDates, fallback: datetime | None) -> datetime:
    return dates.updated or dates.created or fallback or datetime.now(UTC)


def normal_tag(tag: str) -> str:
    """Tags compare without case and without a leading `#`."""
    return fold(tag.strip().lstrip("#"))


def index_tags(entry: Entry) -> list[str]:
    """What `tag:` finds `entry` by: its frontmatter tags and the `#tags` in its body
    (storage.text.tags, as Obsidian reads them), each nested tag with its parents."""
    return sorted({normal_tag(t) for t in note_tags(entry.tags, entry.body) if t.strip()})


def prepare(entry: Entry, modified: datetime | None = None) -> Document:
    """Everything the index stores about `entry`, its text made storable first
    (storage.index.storable), so every row made from it is."""
    entry = storable_entry(entry)
    shown = f"{entry.title}\n{entry.body}"
    terms, length, folded = note_terms(searchable_text(entry), shown)
    dates = note_dates(entry.fields)  # read once, for the three columns
    return Document(
        entry=entry,
        updated=_last_change(dates, modified),
        created=dates.created,
        due=dates.due,
        fields_json=encode_fields(entry.fields),
        tags=index_tags(entry),
        terms=terms,
        length=length,
        folded=folded[:TSV_CHARS],
        chunks=chunk_note(entry.title, entry.body),
        links=extract_links(entry.body, entry.path),
        names=note_names(entry.title, entry.fields),
    )


def prepare_each(
    entries: Sequence[Entry], modified: Mapping[str, datetime]
) -> tuple[list[Document], list[tuple[str, str]]]:
    """`prepare` each of `entries`; one that cannot be (a frontmatter nested too deep
    to walk) is left out, as (path, why), and the others go on."""
    docs: list[Document] = []
    refused: list[tuple[str, str]] = []
    for entry in entries:
        try:
            docs.append(prepare(entry, modified.get(entry.path)))
        except Exception as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            refused.append((entry.path, reason))
    return docs, refused


def _plain(value: Any) -> Any:
    """`value` as JSON-safe data; dates and times become tagged objects so they read back."""
    if isinstance(value, str | bool | int) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, time):
        return {"$time": value.isoformat()}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_plain(v) for v in items]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def encode_fields(fields: Mapping[str, Any]) -> str:
    """Frontmatter as JSON that `decode_fields` turns back into the same values."""
    return json.dumps(_plain(fields), ensure_ascii=False)


def decode_fields(value: Any) -> Any:
    """The inverse of `encode_fields` on the JSON as the driver hands it back."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, raw),) = value.items()
            if key == "$datetime":
                return datetime.fromisoformat(raw)
            if key == "$date":
                return date.fromisoformat(raw)
            if key == "$time":
                return time.fromisoformat(raw)
        return {k: decode_fields(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_fields(v) for v in value]
    return value
