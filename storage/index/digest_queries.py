"""The questions a digest asks of one vault's index, answered in SQL.

A digest lists a handful of notes out of thousands, so each section is one query
on the vault's rows of the `entries` table (the admin items' three sections share
one) that returns only what the digest shows (no bodies) plus how many more matched.
A note's dates are read once, when it is indexed (storage.text.dates, through
storage.index.indexed_note): the queries compare the `due` and `created` columns, never
the text of a field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.index.indexed_note import decode_fields
from storage.vault.schema import ADMIN, INBOX, PEOPLE, PROJECTS


@dataclass(frozen=True, slots=True)
class NoteRow:
    """A note as a digest line needs it."""

    path: str
    category: str
    title: str
    status: str | None
    fields: Mapping[str, Any]
    updated: datetime


@dataclass(frozen=True, slots=True)
class Listing:
    """The first rows of a section and how many matched in all."""

    rows: tuple[NoteRow, ...]
    total: int


@dataclass(frozen=True, slots=True)
class DigestFacts:
    open_projects: Listing  # not closed (no status is open), soonest due, next action first
    due: Listing  # open admin items due on or before `due_by`, oldest due first
    todo: Listing  # open admin items without a due date, least recently touched first
    coming_up: Listing  # open admin items due after `due_by`, soonest first
    follow_ups: Listing  # people with follow-ups, least recently touched first
    captured: Listing  # notes created in [start, end), latest capture first
    inbox: int  # notes waiting in the inbox
    stuck: Listing  # open projects not changed since `stuck_before`, oldest first
    finished: Listing  # projects and admin items closed in [start, end) (weekly review)


@dataclass(frozen=True, slots=True)
class DigestQuery:
    """What to ask: the period a digest covers and how many rows each section shows."""

    start: datetime  # captured/finished from (inclusive, UTC)
    end: datetime  # ... until (exclusive, UTC): the moment the digest is composed
    due_by: date  # admin items due on or before this date are due; later ones come up
    stuck_before: datetime
    closed: Sequence[str]  # statuses that mean "nothing left to do"
    categories: Sequence[str]  # notes outside these folders (digests/) are not captures
    limit: int = 10
    with_finished: bool = False


# The categories whose notes the sections list, as the vault schema names them.
_CATEGORIES = {"c_projects": PROJECTS, "c_admin": ADMIN, "c_people": PEOPLE, "c_inbox": INBOX}
_COLUMNS = "e.path, e.category, e.title, e.status, e.fields, e.updated, count(*) OVER () AS total"
_OPEN = "lower(coalesce(e.status, '')) <> ALL(CAST(:closed AS text[]))"
_CLOSED = "lower(coalesce(e.status, '')) = ANY(CAST(:closed AS text[]))"

# Every open project: one without a status or a next action is still open, and the
# digest asks for its next action. Those with a due date first, then those with a
# next action.
_OPEN_PROJECTS = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = :c_projects AND {_OPEN}
ORDER BY e.due NULLS LAST,
  coalesce(e.fields->>'next_action', '') IN ('', 'null'), e.updated DESC, e.id
LIMIT :limit
"""
# Every open admin item in one scan, split three ways: due by `due_by`, without a
# due date (a to-do), and due later; the first `limit` of each part and its size.
_OPEN_ADMIN = f"""
SELECT * FROM (
  SELECT a.*, row_number() OVER (PARTITION BY a.part ORDER BY a.due, a.updated, a.id) AS n,
         count(*) OVER (PARTITION BY a.part) AS total
  FROM (
    SELECT e.id, e.path, e.category, e.title, e.status, e.fields, e.updated, e.due,
           CASE WHEN e.due IS NULL THEN 'todo' WHEN e.due <= :due_by THEN 'due' ELSE 'later' END
             AS part
    FROM entries e
    WHERE e.vault_id = :vault AND e.category = :c_admin AND {_OPEN}
  ) a
) ranked
WHERE n <= :limit
ORDER BY part, n
"""
_FOLLOW_UPS = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = :c_people
  AND CASE jsonb_typeof(e.fields->'follow_ups')
        WHEN 'array' THEN jsonb_array_length(e.fields->'follow_ups') > 0
        WHEN 'string' THEN e.fields->>'follow_ups' <> ''
        ELSE false END
ORDER BY e.updated, e.id
LIMIT :limit
"""
# `updated` is never before `created`, so the indexed `updated` bound narrows the scan.
_CAPTURED = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.updated >= :start
  AND e.category = ANY(CAST(:categories AS text[]))
  AND e.created >= :start AND e.created < :end
ORDER BY e.created DESC, e.id
LIMIT :limit
"""
_INBOX = "SELECT count(*) FROM entries e WHERE e.vault_id = :vault AND e.category = :c_inbox"
_STUCK = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = :c_projects AND {_OPEN}
  AND e.updated < :stuck_before
ORDER BY e.updated, e.id
LIMIT :limit
"""
_FINISHED = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category IN (:c_projects, :c_admin) AND {_CLOSED}
  AND e.updated >= :start AND e.updated < :end
ORDER BY e.updated DESC, e.id
LIMIT :limit
"""


def _row(row: Any) -> NoteRow:
    fields = decode_fields(row.fields)
    return NoteRow(
        row.path,
        row.category,
        row.title,
        row.status,
        fields if isinstance(fields, dict) else {},
        row.updated,
    )


async def _listing(conn: AsyncConnection, sql: str, params: Mapping[str, Any]) -> Listing:
    rows = (await conn.execute(text(sql), dict(params))).all()
    return Listing(tuple(_row(r) for r in rows), rows[0].total if rows else 0)


async def _open_admin(conn: AsyncConnection, params: Mapping[str, Any]) -> dict[str, Listing]:
    """The open admin items' parts by name (`due`, `todo`, `later`); a missing part is empty."""
    rows = (await conn.execute(text(_OPEN_ADMIN), dict(params))).all()
    parts: dict[str, list[Any]] = {"due": [], "todo": [], "later": []}
    for row in rows:
        parts[row.part].append(row)
    return {
        name: Listing(tuple(_row(r) for r in found), found[0].total if found else 0)
        for name, found in parts.items()
    }


async def digest_facts(engine: AsyncEngine, query: DigestQuery, *, vault_id: int) -> DigestFacts:
    """Everything one digest of vault `vault_id` lists, in a handful of indexed queries
    on one connection."""
    params: dict[str, Any] = {
        "vault": vault_id,
        **_CATEGORIES,
        "closed": [s.lower() for s in query.closed],
        "limit": query.limit,
        "due_by": query.due_by,
        "categories": list(query.categories),
        "stuck_before": query.stuck_before,
        "start": query.start,
        "end": query.end,
    }
    async with engine.connect() as conn:
        open_projects = await _listing(conn, _OPEN_PROJECTS, params)
        admin = await _open_admin(conn, params)
        follow_ups = await _listing(conn, _FOLLOW_UPS, params)
        captured = await _listing(conn, _CAPTURED, params)
        inbox = int((await conn.execute(text(_INBOX), params)).scalar_one())
        stuck = await _listing(conn, _STUCK, params)
        finished = (
            await _listing(conn, _FINISHED, params) if query.with_finished else Listing((), 0)
        )
    return DigestFacts(
        open_projects,
        admin["due"],
        admin["todo"],
        admin["later"],
        follow_ups,
        captured,
        inbox,
        stuck,
        finished,
    )
