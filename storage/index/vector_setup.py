"""Readying the vector side of the index for an embedder, when the index opens.

Vectors another embedder made are never dropped on the way: with no embedder they
wait unused (keyword search), and a different one is refused (`EmbedderChanged`)
unless `reembed` lets it replace them."""

from __future__ import annotations

import logging

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db.engine import Database
from storage.errors import EmbedderChanged
from storage.index import indexer
from storage.index.embeddings import EmbeddingError, NeedsProbe

log = logging.getLogger(__name__)


async def probe(database: Database, embedder: NeedsProbe) -> None:
    """Learn the embedder's vector length; when its service is down at start, the
    length recorded for the same model lets the bot run (keyword search) instead of
    failing or dropping vectors."""
    try:
        await embedder.probe()
    except EmbeddingError:
        async with database.engine.connect() as conn:
            row = (
                await conn.execute(text("SELECT embedder, dimensions FROM index_meta WHERE id = 1"))
            ).first()
        if row is None or row.embedder != embedder.name or not row.dimensions:
            raise
        log.warning("index: %s unreachable; assuming %d dimensions", row.embedder, row.dimensions)
        embedder.assume_dimensions(int(row.dimensions))


async def prepare_vectors(
    database: Database, name: str | None, dimensions: int | None, *, reembed: bool
) -> bool:
    """Make the chunk vectors fit embedder `name` (None: no embedder); True when some
    notes have no vector yet (`Index.embed_pending` fills them in)."""
    async with database.engine.begin() as conn:
        await indexer.lock(conn)
        await conn.execute(
            text(
                "INSERT INTO index_meta (id, doc_count, total_length, recheck)"
                " VALUES (1, 0, 0, '{}') ON CONFLICT (id) DO NOTHING"
            )
        )
        if name is None and not reembed:
            return False  # keyword search only; stored vectors stay for when embeddings return
        row = (
            await conn.execute(text("SELECT embedder, dimensions FROM index_meta WHERE id = 1"))
        ).one()
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
            await indexer.drop_vector_index(conn)
            await conn.execute(text("TRUNCATE chunks"))
            column = f"vector({dimensions})" if dimensions else "vector"
            await conn.execute(text(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE {column}"))
            await conn.execute(text("UPDATE entries SET embedded = false WHERE embedded"))
            await conn.execute(
                text("UPDATE index_meta SET embedder = :name, dimensions = :dim WHERE id = 1"),
                {"name": name, "dim": dimensions},
            )
            log.info("index: vectors now come from %s (%s dimensions)", name, dimensions)
        await indexer.create_vector_index(conn, dimensions)
        if name is None:
            return False
        pending = await conn.execute(text("SELECT 1 FROM entries WHERE NOT embedded LIMIT 1"))
        return pending.first() is not None


async def refuse_to_drop_vectors(
    conn: AsyncConnection, stored: str | None, wanted: str | None
) -> None:
    """Raise EmbedderChanged when notes hold vectors of `stored` that `wanted` would drop."""
    embedded = (
        await conn.execute(text("SELECT count(*) FROM entries WHERE embedded"))
    ).scalar_one()
    if stored is not None and embedded:
        raise EmbedderChanged(stored, wanted, int(embedded))
