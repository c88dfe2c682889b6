"""Writing notes into the index tables, inside a transaction the caller holds.

Small changes and bulk loads share one path: rows of the notes being replaced are
removed (term document frequencies decremented first), then entries go in with one
pipelined multi-row insert, postings and chunk vectors with binary COPY.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.index.documents import Document

# Index writers take this advisory lock, so term counts never deadlock or race.
INDEX_LOCK = 0x6272_6169_6E69
HNSW_INDEX = "chunks_embedding_hnsw"
HNSW_MAX_DIMENSIONS = 2000  # pgvector cannot build HNSW on longer vectors

_REMOVE = text(
    """
    WITH gone AS (SELECT id, length FROM entries WHERE path = ANY(CAST(:paths AS text[]))),
    counts AS (
        SELECT p.term, count(*) AS n FROM postings p JOIN gone g ON p.entry_id = g.id
        GROUP BY p.term
    ),
    dec AS (UPDATE terms t SET df = t.df - c.n FROM counts c WHERE t.term = c.term),
    del AS (DELETE FROM entries e USING gone g WHERE e.id = g.id),
    meta AS (
        UPDATE index_meta SET
            doc_count = doc_count - (SELECT count(*) FROM gone),
            total_length = total_length - (SELECT coalesce(sum(length), 0) FROM gone)
        WHERE id = 1
    )
    SELECT count(*) FROM gone
    """
)
_RESERVE_IDS = text(
    "SELECT nextval(pg_get_serial_sequence('entries', 'id')) FROM generate_series(1, :n)"
)
_INSERT_ENTRY = text(
    """
    INSERT INTO entries (id, path, category, title, status, tags, fields, body, content_hash,
                         frontmatter_error, updated, length, embedded, tsv)
    VALUES (:id, :path, :category, :title, :status, :tags, CAST(:fields AS jsonb), :body,
            :content_hash, :frontmatter_error, :updated, :length, :embedded,
            to_tsvector('simple', :folded))
    """
)
_ADD_TERMS = text(
    """
    INSERT INTO terms (term, df)
    SELECT * FROM unnest(CAST(:terms AS text[]), CAST(:dfs AS int[]))
    ON CONFLICT (term) DO UPDATE SET df = terms.df + EXCLUDED.df
    """
)
_INSERT_LINK = text(
    """
    INSERT INTO links (source_id, target_key, target_path, target_alt, context)
    VALUES (:source_id, :target_key, :target_path, :target_alt, :context)
    """
)
_ADD_STATS = text(
    "UPDATE index_meta SET doc_count = doc_count + :n, total_length = total_length + :length"
    " WHERE id = 1"
)


async def lock(conn: AsyncConnection) -> None:
    """Serialise index writers (across processes) until the transaction ends."""
    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": INDEX_LOCK})


async def remove(conn: AsyncConnection, paths: Sequence[str]) -> int:
    """Drop the notes at `paths` with everything derived from them; how many there were."""
    if not paths:
        return 0
    return int((await conn.execute(_REMOVE, {"paths": list(paths)})).scalar_one())


def vector_bytes(vector: Sequence[float]) -> bytes:
    """pgvector's binary form: dimension, a reserved zero, then big-endian float4s."""
    return struct.pack(">HH", len(vector), 0) + np.asarray(vector, dtype=">f4").tobytes()


async def copy_rows(
    conn: AsyncConnection, statement: str, types: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Binary COPY of `rows` on the transaction's own connection."""
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    async with driver.cursor() as cursor, cursor.copy(statement) as copy:
        copy.set_types(list(types))
        for row in rows:
            await copy.write_row(row)


async def insert_chunks(
    conn: AsyncConnection, rows: Iterable[tuple[int, int, int, Sequence[float]]]
) -> None:
    """Chunks as (entry id, ordinal, start offset, vector)."""
    await copy_rows(
        conn,
        "COPY chunks (entry_id, ord, start, embedding) FROM STDIN (FORMAT BINARY)",
        ["int4", "int4", "int4", "bytea"],  # bytea: the vector's bytes pass through as they are
        ((e, o, s, vector_bytes(v)) for e, o, s, v in rows),
    )


async def write(
    conn: AsyncConnection,
    docs: Sequence[Document],
    vectors: Sequence[Sequence[Sequence[float]]] | None,
) -> None:
    """Replace the index rows of `docs` (vectors: per doc, one per chunk; None = not embedded)."""
    if not docs:
        return
    await remove(conn, [d.entry.path for d in docs])
    ids = [int(i) for i in (await conn.execute(_RESERVE_IDS, {"n": len(docs)})).scalars()]
    await conn.execute(
        _INSERT_ENTRY,
        [
            {
                "id": entry_id,
                "path": d.entry.path,
                "category": d.entry.category,
                "title": d.entry.title,
                "status": d.entry.status,
                "tags": d.tags,
                "fields": d.fields_json,
                "body": d.entry.body,
                "content_hash": d.entry.content_hash,
                "frontmatter_error": d.entry.frontmatter_error,
                "updated": d.updated,
                "length": d.length,
                "embedded": vectors is not None,
                "folded": d.folded,
            }
            for entry_id, d in zip(ids, docs, strict=True)
        ],
    )
    await copy_rows(
        conn,
        "COPY postings (term, entry_id, tf, dl) FROM STDIN (FORMAT BINARY)",
        ["text", "int4", "int4", "int4"],
        (
            (term, entry_id, tf, d.length)
            for entry_id, d in zip(ids, docs, strict=True)
            for term, tf in d.terms.items()
        ),
    )
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.terms.keys())
    terms = sorted(df)
    await conn.execute(_ADD_TERMS, {"terms": terms, "dfs": [df[t] for t in terms]})
    if vectors is not None:
        await insert_chunks(
            conn,
            (
                (entry_id, number, chunk.start, vector)
                for entry_id, d, doc_vectors in zip(ids, docs, vectors, strict=True)
                for number, (chunk, vector) in enumerate(zip(d.chunks, doc_vectors, strict=True))
            ),
        )
    links = [
        {
            "source_id": entry_id,
            "target_key": link.key,
            "target_path": link.path,
            "target_alt": link.alt,
            "context": link.context,
        }
        for entry_id, d in zip(ids, docs, strict=True)
        for link in d.links
    ]
    if links:
        await conn.execute(_INSERT_LINK, links)
    await conn.execute(_ADD_STATS, {"n": len(docs), "length": sum(d.length for d in docs)})


async def drop_vector_index(conn: AsyncConnection) -> None:
    await conn.execute(text(f"DROP INDEX IF EXISTS {HNSW_INDEX}"))


async def create_vector_index(conn: AsyncConnection, dimensions: int | None) -> None:
    """The HNSW cosine index, when the vectors are short enough for one."""
    if dimensions is None or dimensions > HNSW_MAX_DIMENSIONS:
        return
    # A bigger build buffer keeps the graph in memory: much faster bulk builds.
    await conn.execute(text("SET LOCAL maintenance_work_mem = '256MB'"))
    await conn.execute(
        text(
            f"CREATE INDEX IF NOT EXISTS {HNSW_INDEX} ON chunks"
            " USING hnsw (embedding vector_cosine_ops)"
        )
    )
