"""The database's vector side: pgvector's extension and the `embedding` column of
`chunks`, there only when the server can run pgvector.

The embedded server's pgvector needs a newer CPU than Postgres itself
(storage.db.cpu_features). On an older one, measured with the server run under
qemu-user: without AVX, loading the library at all (`CREATE EXTENSION vector`, the
first use of the type in a session) kills the server's process in pgvector's
`_PG_init`; with AVX but no AVX2, any vector stored or compared does; and on either, a
table with an HNSW index cannot even be read or dropped, since opening it loads the
library. Every connection drops with the process. So on such a CPU the database has
no vector side: no extension, no column. Nothing brainbot runs without an embedder
names them (storage.index: search, related notes); keyword search (BM25 in SQL over
our own tables) needs neither, so a capture, a sync and a search work as anywhere.

Moving the data folder between machines:
- to a CPU that runs pgvector (or to DATABASE_URL's server): the extension and the
  column are added at start, and an embedder fills them (storage.index.backfill);
- from one: a vector side that holds nothing (no vector, no vector index) is removed
  at start; one holding vectors or a vector index is refused, the folder unchanged,
  with how to drop them first (EmbeddedPostgresUnsupportedCpu): nothing here can read
  or drop them without killing the server.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db.cpu_features import LEVEL_3_CPUS
from storage.errors import EmbeddedPostgresUnsupportedCpu

log = logging.getLogger(__name__)

# What to do for semantic search on a CPU below the embedded server's pgvector.
SEMANTIC_SEARCH_FIX = (
    "set DATABASE_URL to a Postgres with pgvector built for this CPU (a distribution's "
    "package, or the pgvector/pgvector image of the Compose file), or run brainbot on a "
    f"CPU with AVX2 ({LEVEL_3_CPUS})"
)


def semantic_search_off(missing: Sequence[str]) -> str:
    """Why semantic search is off, for a log line, `brainbot doctor` and /readyz."""
    return (
        f"semantic search is off: this CPU lacks {', '.join(missing)}, which the embedded "
        "Postgres' pgvector needs; keyword search works"
    )


_HAS_EXTENSION = text("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')")
_HAS_COLUMN = text(
    "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('chunks')"
    " AND attname = 'embedding' AND NOT attisdropped)"
)
# Indexes of pgvector's access methods: read from the catalog, never opened.
_VECTOR_INDEXES = text(
    "SELECT c.relname FROM pg_class c JOIN pg_am a ON a.oid = c.relam"
    " WHERE c.relkind = 'i' AND a.amname IN ('hnsw', 'ivfflat') ORDER BY 1"
)
_EMBEDDED_NOTES = text("SELECT count(*) FROM entries WHERE embedded")
_HAS_VECTORS = text("SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL)")


async def add(conn: AsyncConnection) -> None:
    """The `embedding` column on `chunks`, when the tables are made or the folder comes
    from a CPU without pgvector (the extension is created when the database is
    checked: storage.db.connection). Its length follows the embedder
    (storage.index.vector_setup)."""
    if not await conn.scalar(_HAS_COLUMN):
        await conn.execute(text("ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedding vector"))


async def remove(conn: AsyncConnection, missing: Sequence[str]) -> None:
    """No vector side, on a CPU that lacks `missing`: an empty one is dropped; one that
    holds vectors or a vector index raises EmbeddedPostgresUnsupportedCpu."""
    if not await conn.scalar(_HAS_EXTENSION):
        return
    indexes = list(await conn.scalars(_VECTOR_INDEXES))
    has_column = bool(await conn.scalar(_HAS_COLUMN))
    # With a vector index even counting the vectors would kill: the notes say how many.
    vectors = bool(indexes) or (has_column and bool(await conn.scalar(_HAS_VECTORS)))
    if vectors:
        notes = int(await conn.scalar(_EMBEDDED_NOTES) or 0)
        held = [f"the vectors of {notes} notes"] if notes else []
        held += [f"the vector index {name}" for name in indexes]
        raise EmbeddedPostgresUnsupportedCpu(list(missing), held or ["vectors"])
    if has_column:
        await conn.execute(text("ALTER TABLE chunks DROP COLUMN embedding"))
    await conn.execute(text("DROP EXTENSION vector"))
    # No embedder's vectors are kept: the next one starts afresh.
    await conn.execute(text("UPDATE index_meta SET embedder = NULL, dimensions = NULL"))
    log.warning(
        "embedded Postgres: pgvector removed from the database (it held no vectors): this "
        "CPU lacks %s, which it needs",
        ", ".join(missing),
    )
