"""Building a vault's index in bulk (an import, a rebuild), and the vectors of notes
indexed without them (a new embedder, or one that was down).

Every round is a transaction of its own, short and under the vault's lock only, so
another vault's searches and writes never wait for a whole import: the chunk table
and its HNSW index are every vault's, and a rebuild of that index (DROP INDEX takes
the table exclusively) held everyone's searches until the import committed. The
notes are embedded before each round's transaction, never inside one.

All or nothing as the vault's owner sees it: an import records its commit as
indexed only after its last round (Index.advance), so a crash part-way leaves the
index behind the vault, and the next open's sync indexes what is missing; a rebuild
replaces notes in place, so the vault stays searchable throughout (each note old or
new), and drops the notes the vault no longer has at the end."""

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
from storage.index.pipeline import vector_floats
from storage.index.storable import refusal
from storage.index.vector_setup import refuse_to_drop_vectors

Progress = Callable[[int, int], None]  # (done, total)
Refused = tuple[str, str]  # (path, why) of a note left out
# Notes per round of `load`: one round's transaction holds the vault's lock for well
# under a second, and its notes are embedded (locally: a minute or so) before it.
BATCH = 500
# Notes embedded per round of `embed_pending`: a round is what a local model does in
# seconds, so progress shows often and a stop never waits long.
EMBED_BATCH = 100

# The vectors of notes indexed with the same content: the same text cut the same way
# (the same chunk offsets) has the same passages, so they are not embedded again.
# vector_send is pgvector's binary form, read back exactly (storage.index.indexer).
_STORED_VECTORS = text(
    """
    SELECT e.path, e.content_hash, c.start, vector_send(c.embedding) AS vector
    FROM entries e JOIN chunks c ON c.entry_id = e.id
    WHERE e.vault_id = :vault AND e.embedded AND e.path = ANY(CAST(:paths AS text[]))
    ORDER BY e.path, c.ord
    """
)


async def load(
    index: Index,
    entries: Sequence[Entry],
    modified: Mapping[str, datetime] | None = None,
    *,
    replace_all: bool = False,
    progress: Progress | None = None,
) -> list[Refused]:
    """Bulk-index `entries`, BATCH notes a transaction (a note which cannot be prepared
    or which Postgres refuses is left out, and the others go in: see
    storage.index.indexer.write_each); with `replace_all` (a rebuild), the notes
    indexed before in this vault and not among `entries` are dropped at the end, and
    the vault's word counts made again. The notes left out, (path, why)."""
    modified = modified or {}
    total = len(entries)
    refused: list[Refused] = []
    if replace_all and index.embedder is None and not index.reembed:
        async with index.database.engine.begin() as conn:
            stored = (
                await conn.execute(
                    text("SELECT embedder FROM index_meta WHERE vault_id = :vault"),
                    {"vault": index.vault_id},
                )
            ).scalar_one_or_none()
            await refuse_to_drop_vectors(conn, stored, None, vault_id=index.vault_id)
    done = 0
    for start in range(0, total, BATCH):
        batch = entries[start : start + BATCH]
        docs, left_out = await asyncio.to_thread(prepare_each, batch, modified)
        vectors = await _vectors(index, docs)
        async with index.database.engine.begin() as conn:
            await indexer.lock(conn, index.vault_id)
            await indexer.remove(conn, index.vault_id, [path for path, _ in left_out])
            refused += left_out + await _write(conn, index, docs, vectors)
        done += len(batch)
        if progress:
            progress(done, total)
    if replace_all:
        await _drop_others(index, {e.path for e in entries})
    # Fresh statistics, or the planner keeps planning for the tables as they were.
    async with index.database.engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("ANALYZE entries, postings, terms, chunks, links, note_names"))
    out = {path for path, _ in refused}
    await index.written(refused, [e.path for e in entries if e.path not in out])
    return refused


async def _vectors(index: Index, docs: Sequence[Document]) -> indexer.Vectors | None:
    """Per document its chunk vectors: those stored for the same content, the others
    embedded; None when there is no embedder or it failed."""
    if index.embedder is None or not docs:
        return None
    stored = await _stored_vectors(index, docs)
    todo = [d for d in docs if d.entry.path not in stored]
    fresh = await index.embed_documents(todo) if todo else []
    if fresh is None:
        return None
    made = dict(zip((d.entry.path for d in todo), fresh, strict=True))
    return [stored.get(d.entry.path) or made[d.entry.path] for d in docs]


async def _stored_vectors(index: Index, docs: Sequence[Document]) -> dict[str, list[list[float]]]:
    """The vectors indexed for notes whose content and chunks are those of `docs`."""
    wanted = {d.entry.path: d for d in docs}
    found: dict[str, list[tuple[str, int, list[float]]]] = {}
    async with index.database.engine.connect() as conn:
        rows = await conn.execute(_STORED_VECTORS, {"vault": index.vault_id, "paths": [*wanted]})
        for row in rows:
            vector = vector_floats(bytes(row.vector))
            found.setdefault(row.path, []).append((row.content_hash, row.start, vector))
    same: dict[str, list[list[float]]] = {}
    for path, chunks in found.items():
        doc = wanted[path]
        hashes = {content_hash for content_hash, _, _ in chunks}
        if hashes == {doc.entry.content_hash} and [s for _, s, _ in chunks] == [
            c.start for c in doc.chunks
        ]:
            same[path] = [vector for _, _, vector in chunks]
    return same


async def _drop_others(index: Index, keep: set[str]) -> None:
    """After a rebuild: drop the vault's notes not in `keep`, BATCH at a time, then count
    its words and lengths again from what is indexed."""
    stale = [path for path in await index.paths() if path not in keep]
    for start in range(0, len(stale), BATCH):
        async with index.database.engine.begin() as conn:
            await indexer.lock(conn, index.vault_id)
            await indexer.remove(conn, index.vault_id, stale[start : start + BATCH])
    async with index.database.engine.begin() as conn:
        await indexer.lock(conn, index.vault_id)
        await indexer.recount(conn, index.vault_id)


async def _write(
    conn: AsyncConnection, index: Index, docs: Sequence[Document], vectors: indexer.Vectors | None
) -> list[Refused]:
    """One batch behind a savepoint: should Postgres refuse a note of it, the batch is
    written again note by note, and the notes refused are returned."""
    try:
        async with conn.begin_nested():
            await indexer.write(conn, index.vault_id, docs, vectors)
    except Exception as exc:
        if refusal(exc) is None:
            raise
        return await indexer.write_each(conn, index.vault_id, docs, vectors)
    return []


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
