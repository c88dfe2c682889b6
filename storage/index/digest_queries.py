"""The questions a digest asks of one vault's index, answered in SQL.

A digest lists a handful of notes out of thousands, so each section is one query
on the vault's rows of the `entries` table that returns only what the digest shows
(no bodies) plus how many more matched. Frontmatter dates are read leniently: a
`due` written as a date, a datetime or a string all count; anything else is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.index.documents import decode_fields
from storage.vault.notefile import parse_timestamp


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
    next_actions: Listing  # open projects with a next action, soonest due first
    due: Listing  # open admin items due on or before `due_by`, oldest due first
    follow_ups: Listing  # people with follow-ups, least recently touched first
    captured: Listing  # notes created in [start, end), latest capture first
    inbox: int  # notes waiting in the inbox
    stuck: Listing  # open projects not changed since `stuck_before`, oldest first
    finished: Listing  # projects and admin items closed in [start, end) (weekly review)


@dataclass(frozen=True, slots=True)
class DigestQuery:
    """What to ask: the period a digest covers and how many rows each section shows."""

    start: datetime  # captured/finished from (inclusive, UTC)
    end: datetime  # ... until (exclusive, UTC)
    due_by: date  # admin items due on or before this date
    stuck_before: datetime
    closed: Sequence[str]  # statuses that mean "nothing left to do"
    categories: Sequence[str]  # notes outside these folders (digests/) are not captures
    limit: int = 10
    with_finished: bool = False


_COLUMNS = "e.path, e.category, e.title, e.status, e.fields, e.updated, count(*) OVER () AS total"
_DUE = (
    "left(coalesce(e.fields->'due'->>'$date', e.fields->'due'->>'$datetime', e.fields->>'due'), 10)"
)
_DUE_KNOWN = f"{_DUE} ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$'"
_OPEN = "lower(coalesce(e.status, '')) <> ALL(CAST(:closed AS text[]))"
_CLOSED = "lower(coalesce(e.status, '')) = ANY(CAST(:closed AS text[]))"

_NEXT_ACTIONS = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = 'projects' AND {_OPEN}
  AND coalesce(e.fields->>'next_action', '') NOT IN ('', 'null')
ORDER BY CASE WHEN {_DUE_KNOWN} THEN {_DUE} END NULLS LAST, e.updated DESC, e.id
LIMIT :limit
"""
_DUE_ITEMS = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = 'admin' AND {_OPEN}
  AND {_DUE_KNOWN} AND {_DUE} <= :due_by
ORDER BY {_DUE}, e.id
LIMIT :limit
"""
_FOLLOW_UPS = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = 'people'
  AND CASE jsonb_typeof(e.fields->'follow_ups')
        WHEN 'array' THEN jsonb_array_length(e.fields->'follow_ups') > 0
        WHEN 'string' THEN e.fields->>'follow_ups' <> ''
        ELSE false END
ORDER BY e.updated, e.id
LIMIT :limit
"""
# `updated` is never before `created`, so the indexed `updated` bound narrows the scan;
# the exact `created` test happens in Python on the few rows left.
_CAPTURED = """
SELECT e.path, e.category, e.title, e.status, e.fields, e.updated FROM entries e
WHERE e.vault_id = :vault AND e.updated >= :start
  AND e.category = ANY(CAST(:categories AS text[]))
  AND left(coalesce(e.fields->'created'->>'$datetime', e.fields->'created'->>'$date',
                    e.fields->>'created'), 10) BETWEEN :first_day AND :last_day
ORDER BY e.updated DESC, e.id
"""
_INBOX = "SELECT count(*) FROM entries e WHERE e.vault_id = :vault AND e.category = 'inbox'"
_STUCK = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category = 'projects' AND {_OPEN}
  AND e.updated < :stuck_before
ORDER BY e.updated, e.id
LIMIT :limit
"""
_FINISHED = f"""
SELECT {_COLUMNS} FROM entries e
WHERE e.vault_id = :vault AND e.category IN ('projects', 'admin') AND {_CLOSED}
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


async def _captured(conn: AsyncConnection, vault_id: int, query: DigestQuery) -> Listing:
    params = {
        "vault": vault_id,
        "start": query.start,
        "categories": list(query.categories),
        # Calendar dates in any offset: a day either side, then exact in Python.
        "first_day": (query.start.date() - timedelta(days=1)).isoformat(),
        "last_day": (query.end.date() + timedelta(days=1)).isoformat(),
    }
    rows = [_row(r) for r in (await conn.execute(text(_CAPTURED), params)).all()]
    created = [(c, r) for r in rows if (c := parse_timestamp(r.fields.get("created"))) is not None]
    inside = [
        r
        for c, r in sorted(created, key=lambda cr: cr[0], reverse=True)
        if query.start <= c < query.end
    ]
    return Listing(tuple(inside[: query.limit]), len(inside))


async def digest_facts(engine: AsyncEngine, query: DigestQuery, *, vault_id: int) -> DigestFacts:
    """Everything one digest of vault `vault_id` lists, in a handful of indexed queries
    on one connection."""
    params: dict[str, Any] = {
        "vault": vault_id,
        "closed": [s.lower() for s in query.closed],
        "limit": query.limit,
        "due_by": query.due_by.isoformat(),
        "stuck_before": query.stuck_before,
        "start": query.start,
        "end": query.end,
    }
    async with engine.connect() as conn:
        next_actions = await _listing(conn, _NEXT_ACTIONS, params)
        due = await _listing(conn, _DUE_ITEMS, params)
        follow_ups = await _listing(conn, _FOLLOW_UPS, params)
        captured = await _captured(conn, vault_id, query)
        inbox = int((await conn.execute(text(_INBOX), {"vault": vault_id})).scalar_one())
        stuck = await _listing(conn, _STUCK, params)
        finished = (
            await _listing(conn, _FINISHED, params) if query.with_finished else Listing((), 0)
        )
    return DigestFacts(next_actions, due, follow_ups, captured, inbox, stuck, finished)
