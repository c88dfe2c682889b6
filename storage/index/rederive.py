"""Rows derived from the text the index already holds, made again after an upgrade
taught the index to read more of it (link types, the names notes are mentioned by, the
dates of its fields).

The bodies and fields are in `entries`, so nothing is read from the vaults and no
note is embedded again: re-indexing the vaults instead would re-embed every note
(minutes with a local model), for rows that only need the text.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from sqlalchemy import Row, TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.entry import Entry
from storage.index.indexed_note import decode_fields, index_tags
from storage.index.indexer import insert_links_and_names
from storage.index.mention_names import note_names
from storage.index.note_links import extract_links
from storage.vault.notefile import note_dates

BATCH = 500  # notes read per round, so a vault of clipped articles is not read at once

_BATCH = text(
    "SELECT id, vault_id, path, title, fields, body FROM entries"
    " WHERE id > :after ORDER BY id LIMIT :n"
)


async def _batches(conn: AsyncConnection, select: TextClause) -> AsyncIterator[Sequence[Row[Any]]]:
    """The rows of `select` (which takes :after and :n), BATCH notes at a time, by id."""
    after = 0
    while rows := (await conn.execute(select, {"after": after, "n": BATCH})).all():
        yield rows
        after = rows[-1].id


def _fields(row: Row[Any]) -> dict[str, Any]:
    """A row's frontmatter fields as indexing decoded them (nothing that is no mapping)."""
    fields = decode_fields(row.fields)
    return fields if isinstance(fields, dict) else {}


async def rederive_links_and_names(conn: AsyncConnection) -> int:
    """Replace every note's link rows and name rows with what its indexed text gives
    now, in every vault; how many notes were read. Runs in the caller's transaction."""
    count = 0
    async for rows in _batches(conn, _BATCH):
        ids = [r.id for r in rows]
        for table, column in (("links", "source_id"), ("note_names", "entry_id")):
            await conn.execute(
                text(f"DELETE FROM {table} WHERE {column} = ANY(CAST(:ids AS int[]))"),
                {"ids": ids},
            )
        for vault_id in sorted({r.vault_id for r in rows}):
            notes = [
                (r.id, extract_links(r.body, r.path), note_names(r.title, _fields(r)))
                for r in rows
                if r.vault_id == vault_id
            ]
            await insert_links_and_names(conn, vault_id, notes)
        count += len(rows)
    return count


_FIELDS = text("SELECT id, fields FROM entries WHERE id > :after ORDER BY id LIMIT :n")
_SET_DATES = text(
    "UPDATE entries SET due = CAST(:due AS date), created = coalesce(created, :created)"
    " WHERE id = :id"
)


async def rederive_dates(conn: AsyncConnection) -> int:
    """Set every note's `due` day, and its `created` where it has none, from the fields
    the index holds, as indexing reads them (storage.index.indexed_note); how many notes
    were read. Runs in the caller's transaction."""
    count = 0
    async for rows in _batches(conn, _FIELDS):
        changes = []
        for row in rows:
            fields = _fields(row)
            dates = note_dates(fields)
            due, created = dates.due, dates.created
            if due is not None or created is not None:
                changes.append({"id": row.id, "due": due, "created": created})
        if changes:
            await conn.execute(_SET_DATES, changes)
        count += len(rows)
    return count


_BODIES = text(
    "SELECT id, path, title, fields, body FROM entries WHERE id > :after ORDER BY id LIMIT :n"
)
_SET_TAGS = text("UPDATE entries SET tags = CAST(:tags AS text[]) WHERE id = :id")


async def rederive_tags(conn: AsyncConnection) -> int:
    """Set every note's tags, as indexing reads them (storage.index.indexed_note), from the
    fields and body the index holds; how many notes were read. Runs in the caller's
    transaction."""
    count = 0
    async for rows in _batches(conn, _BODIES):
        # Only its tags and body are read: no category or file hash is needed.
        changes = [
            {"id": r.id, "tags": index_tags(Entry(r.path, "", r.title, _fields(r), r.body, ""))}
            for r in rows
        ]
        await conn.execute(_SET_TAGS, changes)
        count += len(rows)
    return count
