"""Readying the vector side of the index for an embedder, when the index opens.

The chunk vectors of all vaults share one column and one HNSW index, so they all
come from one embedder. Vectors another embedder made are never dropped on the
way: with no embedder they wait unused (keyword search), and a different one is
refused (`EmbedderChanged`) unless `reembed` lets it replace them; then the vectors
of every vault go, and each vault's notes wait for vectors (`storage.index.backfill`
embeds them, in the background when they are many)."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db.connection import Database
from storage.errors import EmbedderChanged
from storage.index import indexer
from storage.index.embeddings import EmbeddingError, NeedsProbe

log = logging.getLogger(__name__)

HNSW_INDEX = "chunks_embedding_hnsw"
HNSW_MAX_DIMENSIONS = 2000  # pgvector cannot build HNSW on longer vectors

# Every vault's row records the same embedder (see IndexMeta): any row says which.
_SHARED_EMBEDDER = text("SELECT embedder, dimensions FROM index_meta ORDER BY vault_id LIMIT 1")
# A new vault's row starts with the embedder the others record.
_ADD_VAULT = text(
    """
    INSERT INTO index_meta (vault_id, doc_count, total_length, recheck, embedder, dimensions)
    VALUES (:vault, 0, 0, '{}',
            (SELECT embedder FROM index_meta ORDER BY vault_id LIMIT 1),
            (SELECT dimensions FROM index_meta ORDER BY vault_id LIMIT 1))
    ON CONFLICT (vault_id) DO NOTHING
    """
)


async def _shared_embedder(conn: AsyncConnection) -> Any:
    return (await conn.execute(_SHARED_EMBEDDER)).first()


async def probe(database: Database, embedder: NeedsProbe) -> None:
    """Learn the embedder's vector length; when its service is down at start, the
    length recorded for the same model lets the bot run (keyword search) instead of
    failing or dropping vectors."""
    try:
        await embedder.probe()
    except EmbeddingError:
        async with database.engine.connect() as conn:
            row = await _shared_embedder(conn)
        if row is None or row.embedder != embedder.name or not row.dimensions:
            raise
        log.warning("index: %s unreachable; assuming %d dimensions", row.embedder, row.dimensions)
        embedder.assume_dimensions(int(row.dimensions))


async def prepare_vectors(
    database: Database, vault_id: int, name: str | None, dimensions: int | None, *, reembed: bool
) -> bool:
    """Make the chunk vectors fit embedder `name` (None: no embedder), and give the vault
    its row of statistics; True when some of the vault's notes have no vector yet
    (`storage.index.backfill` fills them in)."""
    async with database.engine.begin() as conn:
        # The column and the HNSW index are every vault's: no writer may be in between.
        await indexer.lock_all(conn)
        await conn.execute(_ADD_VAULT, {"vault": vault_id})
        if name is None and not reembed:
            return False  # keyword search only; stored vectors stay for when embeddings return
        row = await _shared_embedder(conn)
        typmod = (
            await conn.execute(
                text(
                    "SELECT atttypmod FROM pg_attribute"
                    " WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
                )
            )
        ).scalar_one()
        column_dimensions = typmod if typmod > 0 else None
        if (row.embedder, row.dimensions, column_dimensions) != (name, dimensions, dimensions):
            if not reembed:
                await refuse_to_drop_vectors(conn, row.embedder, name)
            await drop_vector_index(conn)
            await conn.execute(text("TRUNCATE chunks"))
            column = f"vector({dimensions})" if dimensions else "vector"
            await conn.execute(text(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE {column}"))
            await conn.execute(text("UPDATE entries SET embedded = false WHERE embedded"))
            await conn.execute(
                text("UPDATE index_meta SET embedder = :name, dimensions = :dim"),
                {"name": name, "dim": dimensions},
            )
            log.info("index: vectors now come from %s (%s dimensions)", name, dimensions)
        await create_vector_index(conn, dimensions)
        if name is None:
            return False
        pending = await conn.execute(
            text("SELECT 1 FROM entries WHERE vault_id = :vault AND NOT embedded LIMIT 1"),
            {"vault": vault_id},
        )
        return pending.first() is not None


async def refuse_to_drop_vectors(
    conn: AsyncConnection, stored: str | None, wanted: str | None, *, vault_id: int | None = None
) -> None:
    """Raise EmbedderChanged when notes hold vectors of `stored` that `wanted` would drop:
    those of vault `vault_id`, or of every vault (None)."""
    scope = "" if vault_id is None else " AND vault_id = :vault"
    embedded = (
        await conn.execute(
            text(f"SELECT count(*) FROM entries WHERE embedded{scope}"), {"vault": vault_id}
        )
    ).scalar_one()
    if stored is not None and embedded:
        raise EmbedderChanged(stored, wanted, int(embedded))


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
