"""Vectors for notes indexed without them, in the background when they are many.

A new embedder (or one back after being down for long) leaves every note of a vault
without a vector. Embedding them all with a local model takes minutes, so a sync
never waits for that: a few notes it embeds itself, more are handed to a task
that embeds them in rounds and logs how far it got. Meanwhile search ranks the
notes without vectors by keyword (hybrid where vectors exist). What is done is in
the index (`entries.embedded`), so a restart goes on where the last run stopped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.index import bulk
from storage.index.index import Index

log = logging.getLogger(__name__)

INLINE = 50  # a sync embeds at most this many waiting notes itself
LOG_EVERY = 10.0  # seconds between progress lines (the first round is always logged)


@dataclass(frozen=True, slots=True)
class EmbeddingProgress:
    """How many notes of every vault have vectors of `embedder`, of how many."""

    embedder: str
    done: int
    total: int

    def __str__(self) -> str:
        return f"re-embedding for {self.embedder}: {self.done:,} of {self.total:,} notes"


# Capped: a sync asks every time, and mostly nothing or a note or two waits.
_WAITING = text(
    "SELECT count(*) FROM"
    " (SELECT 1 FROM entries WHERE vault_id = :vault AND NOT embedded LIMIT :cap) w"
)
_COUNTS = text(
    "SELECT count(*) FILTER (WHERE embedded) AS done, count(*) AS total"
    " FROM entries WHERE vault_id = :vault"
)
_ALL_COUNTS = text(
    """
    SELECT (SELECT embedder FROM index_meta ORDER BY vault_id LIMIT 1) AS embedder,
           count(*) FILTER (WHERE embedded) AS done, count(*) AS total
    FROM entries
    """
)


async def embedding_progress(engine: AsyncEngine) -> EmbeddingProgress | None:
    """Notes of every vault still waiting for vectors of the recorded embedder; None
    when none wait (or no embedder was ever recorded). Read from the index, so any
    process can tell (`brainbot doctor` as well as `/readyz`); only meaningful where
    embeddings are configured: without them notes are never embedded."""
    async with engine.connect() as conn:
        row = (await conn.execute(_ALL_COUNTS)).one()
    if row.embedder is None or row.done >= row.total:
        return None
    return EmbeddingProgress(row.embedder, int(row.done), int(row.total))


async def embed_or_start(index: Index) -> int:
    """Embed the vault's notes that wait for vectors: up to INLINE here (how many are
    embedded), more in a background task (0 here; see `running`)."""
    if index.embedder is None or embedding_running(index):
        return 0
    vault = {"vault": index.vault_id}
    async with index.database.engine.connect() as conn:
        waiting = int(await conn.scalar(_WAITING, {**vault, "cap": INLINE + 1}) or 0)
        counts = (await conn.execute(_COUNTS, vault)).one() if waiting > INLINE else None
    if not waiting:
        index.needs_embedding = False
        return 0
    if counts is None:
        return await bulk.embed_pending(index)
    waiting = int(counts.total) - int(counts.done)
    name = index.embedder.name
    if not index.embed_in_background:
        log.info(
            "index: %d notes of vault %d wait for vectors of %s; `brainbot run` embeds them "
            "in the background, search finds them by keyword until then",
            waiting,
            index.vault_id,
            name,
        )
        return 0
    log.info(
        "index: re-embedding for %s: %d notes of vault %d in the background; until then "
        "they are found by keyword",
        name,
        waiting,
        index.vault_id,
    )
    index.needs_embedding = True  # until embed_pending finds none left
    index.embedding = asyncio.create_task(
        _embed_in_background(index, int(counts.done), int(counts.total)),
        name=f"embedding vault {index.vault_id}",
    )
    return 0


def embedding_running(index: Index) -> bool:
    """Whether a background task embeds the vault's notes now."""
    return index.embedding is not None and not index.embedding.done()


async def _embed_in_background(index: Index, before: int, total: int) -> int:
    assert index.embedder is not None
    name = index.embedder.name
    last_logged: float | None = None

    def progress(done: int, _: int) -> None:
        nonlocal last_logged
        now = time.monotonic()
        if last_logged is None or now - last_logged >= LOG_EVERY:
            last_logged = now
            embedded = min(before + done, total)
            log.info("index: %s", EmbeddingProgress(name, embedded, total))

    try:
        done = await bulk.embed_pending(index, progress)
    except Exception:
        # The notes keep waiting and are found by keyword; the next sync starts again.
        log.exception("index: re-embedding for %s stopped", name)
        return 0
    if index.needs_embedding:
        log.warning(
            "index: re-embedding for %s paused after %d notes (the embedder failed); "
            "the next sync goes on",
            name,
            done,
        )
    else:
        log.info(
            "index: re-embedding for %s done: %d notes of vault %d", name, done, index.vault_id
        )
    return done
