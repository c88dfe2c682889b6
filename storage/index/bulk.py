"""Building a vault's index in bulk: every note in one transaction (an import, a
rebuild), and the vectors of notes indexed without them (a new embedder, or one that
was down)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.entry import Entry
from storage.index import indexer
from storage.index.index import Index
from storage.index.indexed_note import Document, prepare, prepare_each
from storage.index.storable import refusal
from storage.index.vector_setup import refuse_to_drop_vectors

Progress = Callable[[int, int], None]  # (done, total)
Refused = tuple[str, str]  # (path, why) of a note left out
BATCH = 500
# Notes embedded per round of `embed_pending`: a round is what a local model does in
# seconds, so progress shows often and a stop never waits long.
EMBED_BATCH = 100


async def load(
    index: Index,
    entries: Sequence[Entry],
    modified: Mapping[str, datetime] | None = None,
    *,
    replace_all: bool = False,
    progress: Progress | None = None,
) -> list[Refused]:
    """Bulk-index `entries` in one transaction (all or nothing, but that a note which
    cannot be prepared or which Postgres refuses is left out, and the others go in:
    storage.index.indexer.write_each); with `replace_all`, everything indexed before
    in this vault is dropped first (a rebuild). The notes left out, (path, why)."""
    modified = modified or {}
    total = len(entries)
    refused: list[Refused] = []
    rebuild_vectors = await _rebuilds_vector_index(index, total, replace_all=replace_all)
    async with index.database.engine.begin() as conn:
        if rebuild_vectors:
            await indexer.lock_all(conn)  # the HNSW index is every vault's
            await indexer.drop_vector_index(conn)
        else:
            await indexer.lock(conn, index.vault_id)
        if replace_all:
            if index.embedder is None and not index.reembed:
                stored = (
                    await conn.execute(
                        text("SELECT embedder FROM index_meta WHERE vault_id = :vault"),
                        {"vault": index.vault_id},
                    )
                ).scalar_one_or_none()
                await refuse_to_drop_vectors(conn, stored, None, vault_id=index.vault_id)
            await indexer.remove_vault(conn, index.vault_id)
        done = 0
        for start in range(0, total, BATCH):
            batch = entries[start : start + BATCH]
            docs, left_out = await asyncio.to_thread(prepare_each, batch, modified)
            await indexer.remove(conn, index.vault_id, [path for path, _ in left_out])
            refused += left_out + await _write(conn, index, docs)
            done += len(batch)
            if progress:
                progress(done, total)
        if rebuild_vectors:
            await indexer.create_vector_index(conn, index.dimensions)
    # Fresh statistics, or the planner keeps planning for the tables as they were.
    async with index.database.engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("ANALYZE entries, postings, terms, chunks, links, note_names"))
    out = {path for path, _ in refused}
    await index.written(refused, [e.path for e in entries if e.path not in out])
    return refused


async def _write(conn: AsyncConnection, index: Index, docs: Sequence[Document]) -> list[Refused]:
    """One batch behind a savepoint: should Postgres refuse a note of it, the batch is
    written again note by note, and the notes refused are returned."""
    vectors = await index.embed_documents(docs) if docs else None
    try:
        async with conn.begin_nested():
            await indexer.write(conn, index.vault_id, docs, vectors)
    except Exception as exc:
        if refusal(exc) is None:
            raise
        return await indexer.write_each(conn, index.vault_id, docs, vectors)
    return []


async def _rebuilds_vector_index(index: Index, adding: int, *, replace_all: bool) -> bool:
    # Building HNSW once over all vectors beats inserting them one by one, when
    # the load is large next to what is indexed already, in every vault.
    if index.embedder is None or adding < BATCH:
        return False
    others = " WHERE vault_id <> :vault" if replace_all else ""
    async with index.database.engine.connect() as conn:
        existing = await conn.scalar(
            text(f"SELECT count(*) FROM entries{others}"), {"vault": index.vault_id}
        )
    return adding >= int(existing or 0)


async def embed_pending(
    index: Index, progress: Progress | None = None, *, batch: int = EMBED_BATCH
) -> int:
    """Embed notes indexed without vectors (a new embedder, or the service was down),
    `batch` notes at a time; `progress` hears (done, 0) after each batch. The notes
    are embedded outside any transaction and written under the vault's lock only
    then, so writers wait for a write, not for a model; a note changed meanwhile
    keeps waiting (its new text is embedded in a later round)."""
    if index.embedder is None:
        return 0
    done = 0
    while True:
        async with index.database.engine.connect() as conn:
            rows = list(
                await conn.execute(
                    text(
                        "SELECT id, path, title, body FROM entries"
                        " WHERE vault_id = :vault AND NOT embedded ORDER BY id LIMIT :n"
                    ),
                    {"vault": index.vault_id, "n": batch},
                )
            )
        if not rows:
            index.needs_embedding = False
            return done
        docs = [prepare(Entry(r.path, "", r.title, {}, r.body, "")) for r in rows]
        vectors = await index.embed_documents(docs)
        if vectors is None:
            return done
        async with index.database.engine.begin() as conn:
            await indexer.lock(conn, index.vault_id)
            # A note written meanwhile has a new id (`indexer.write` replaces its row).
            unchanged = set(
                (
                    await conn.execute(
                        text(
                            "SELECT id FROM entries"
                            " WHERE NOT embedded AND id = ANY(CAST(:ids AS int[]))"
                        ),
                        {"ids": [r.id for r in rows]},
                    )
                ).scalars()
            )
            kept = [
                (r, d, v) for r, d, v in zip(rows, docs, vectors, strict=True) if r.id in unchanged
            ]
            ids = [r.id for r, _, _ in kept]
            await conn.execute(
                text("DELETE FROM chunks WHERE entry_id = ANY(CAST(:ids AS int[]))"), {"ids": ids}
            )
            await indexer.insert_chunks(
                conn,
                index.vault_id,
                (
                    (r.id, number, chunk.start, vector)
                    for r, d, doc_vectors in kept
                    for number, (chunk, vector) in enumerate(
                        zip(d.chunks, doc_vectors, strict=True)
                    )
                ),
            )
            await conn.execute(
                text("UPDATE entries SET embedded = true WHERE id = ANY(CAST(:ids AS int[]))"),
                {"ids": ids},
            )
        done += len(kept)
        if progress:
            progress(done, 0)
