"""The questions behind "the past comes back", answered by the index of one vault.

Related: the notes filed in the last days are the seeds; each seed's vector (the mean
of its chunks' vectors) finds its nearest chunks among the vault's older notes, one
index scan per seed (HNSW when the vault is large, exact when small, as searches do;
see storage.index.search). Only notes that may come back count: filed before
`older_than` and not changed since the seeds began (a note just touched is fresh in
mind already), in one of `categories`, not closed, not in the digest already, not
lowered for good and not shown on the days before (storage.db.resurfaced). A note's
score is its best similarity to any seed times its weight.

A year ago: the open notes filed in the same span one year back.

"Filed" is a note's `created`, else its last change, as for search filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.resurfaced import NEVER_BELOW
from storage.index.search import prefer_iterative_scan

_FILED = "coalesce(e.created, e.updated)"
# May this entry `e` (with its row `r` of `resurfaced`) come back?
_MAY_COME_BACK = """
    e.vault_id = :vault AND e.category = ANY(CAST(:categories AS text[]))
    AND lower(coalesce(e.status, '')) <> ALL(CAST(:closed AS text[]))
    AND e.path <> ALL(CAST(:listed AS text[]))
    AND coalesce(r.weight, 1) >= :never_below
    AND (r.last_shown IS NULL OR r.last_shown >= :day OR r.last_shown < :rest_from)
"""

_RELATED = f"""
WITH seeds AS (
    SELECT e.id, e.title FROM entries e
    WHERE e.vault_id = :vault AND e.updated >= :since AND e.embedded
      AND {_FILED} >= :since AND {_FILED} < :until
      AND e.category = ANY(CAST(:seed_categories AS text[]))
    ORDER BY {_FILED} DESC, e.id
    LIMIT :seeds
),
seed_vectors AS (
    SELECT s.id, s.title, avg(c.embedding) AS vector
    FROM seeds s JOIN chunks c ON c.entry_id = s.id
    GROUP BY s.id, s.title
)
SELECT n.path, n.category, n.title, n.filed, n.similarity, n.weight, sv.title AS seed
FROM seed_vectors sv CROSS JOIN LATERAL (
    SELECT e.path, e.category, e.title, {_FILED} AS filed, coalesce(r.weight, 1) AS weight,
           1 - (c.embedding <=> sv.vector) AS similarity
    FROM chunks c
    JOIN entries e ON e.id = c.entry_id
    LEFT JOIN resurfaced r ON r.vault_id = e.vault_id AND r.path = e.path
    WHERE c.vault_id = :vault AND {_FILED} < :older_than AND e.updated < :since
      AND {_MAY_COME_BACK}
    ORDER BY c.embedding <=> sv.vector
    LIMIT :per_seed
) n
"""

_YEAR_AGO = f"""
SELECT e.path, e.category, e.title, {_FILED} AS filed, coalesce(r.weight, 1) AS weight,
       count(*) OVER () AS total
FROM entries e
LEFT JOIN resurfaced r ON r.vault_id = e.vault_id AND r.path = e.path
WHERE {_FILED} >= :start AND {_FILED} < :end AND {_MAY_COME_BACK}
ORDER BY coalesce(r.weight, 1) DESC, abs(extract(epoch FROM {_FILED} - :middle)), e.id
LIMIT :limit
"""


@dataclass(frozen=True, slots=True)
class PastNote:
    """An older note to bring back, and why: `seed` is the title of the recent note it
    is closest to (None for a note from a year ago)."""

    path: str
    category: str
    title: str
    filed: datetime
    score: float
    seed: str | None = None


@dataclass(frozen=True, slots=True)
class PastQuery:
    """Which notes may come back (see the module's docstring)."""

    day: date  # the digest's local date: shown on it already may show again that day
    rest_from: date  # shown on [rest_from, day) keeps a note away
    closed: Sequence[str]
    categories: Sequence[str]
    listed: Sequence[str] = ()  # paths the digest lists already


def _params(vault_id: int, query: PastQuery) -> dict[str, object]:
    return {
        "vault": vault_id,
        "day": query.day,
        "rest_from": query.rest_from,
        "closed": [s.lower() for s in query.closed],
        "categories": list(query.categories),
        "listed": list(query.listed),
        "never_below": NEVER_BELOW,
    }


async def related_older_notes(
    engine: AsyncEngine,
    vault_id: int,
    query: PastQuery,
    *,
    since: datetime,
    until: datetime,
    older_than: datetime,
    threshold: float,
    seed_categories: Sequence[str],
    seeds: int = 5,
    limit: int = 2,
) -> list[PastNote]:
    """Up to `limit` older notes closest to the (at most `seeds` latest) notes filed in
    [since, until) in `seed_categories` (the inbox too: a capture is a capture), best
    first, each scoring at least `threshold`; notes brought back by different seeds
    first. Empty without vectors (no embedder, or none made yet)."""
    params = _params(vault_id, query) | {
        "since": since,
        "until": until,
        "older_than": older_than,
        "seeds": seeds,
        "seed_categories": list(seed_categories),
        "per_seed": 4 * limit,  # a note may have several chunks near a seed
    }
    async with engine.connect() as conn:
        await prefer_iterative_scan(conn, candidates=4 * limit)
        rows = (await conn.execute(text(_RELATED), params)).all()
    best: dict[str, PastNote] = {}
    for row in rows:
        score = float(row.similarity) * float(row.weight)
        if score >= threshold and (row.path not in best or best[row.path].score < score):
            best[row.path] = PastNote(row.path, row.category, row.title, row.filed, score, row.seed)
    ranked = sorted(best.values(), key=lambda n: (-n.score, n.path))
    # One note per seed first: two captures bring back two different threads.
    seeds_used: set[str | None] = set()
    first = []
    for note in ranked:
        if note.seed not in seeds_used:
            seeds_used.add(note.seed)
            first.append(note)
    rest = [n for n in ranked if n not in first]
    return (first + rest)[:limit]


async def notes_filed_between(
    engine: AsyncEngine,
    vault_id: int,
    query: PastQuery,
    *,
    start: datetime,
    end: datetime,
    limit: int = 1,
) -> tuple[list[PastNote], int]:
    """Notes that may come back filed in [start, end) (a week, a year ago): the
    heaviest and those nearest the middle of the span first; and how many there are."""
    params = _params(vault_id, query) | {
        "start": start,
        "end": end,
        "middle": start + (end - start) / 2,
        "limit": limit,
    }
    async with engine.connect() as conn:
        rows = (await conn.execute(text(_YEAR_AGO), params)).all()
    notes = [PastNote(r.path, r.category, r.title, r.filed, float(r.weight)) for r in rows]
    return notes, int(rows[0].total) if rows else 0
