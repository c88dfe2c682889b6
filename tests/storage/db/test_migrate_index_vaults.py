"""Migration 6: the index tables carry the vault. A database indexed before (schema
version 5, one vault) keeps its notes, vectors and statistics as vault 1's, and ends
up with the tables a fresh install creates; on a fresh install the step does nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlmodel import SQLModel

from storage.db.connection import async_url
from storage.entry import Entry
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from storage.index.indexed_note import prepare
from storage.index.search import Filters, vector_literal, vector_ranking
from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import connected, note

INDEX_TABLES = ("entries", "chunks", "postings", "terms", "links", "index_meta")

# The index tables as version 5 created them (one vault, no vault column).
_VERSION_5 = (
    """CREATE TABLE entries (
        id SERIAL NOT NULL, path TEXT NOT NULL, category TEXT NOT NULL, title TEXT NOT NULL,
        status TEXT, tags TEXT[] DEFAULT '{}' NOT NULL, fields JSONB NOT NULL, body TEXT NOT NULL,
        content_hash TEXT NOT NULL, frontmatter_error TEXT,
        updated TIMESTAMP WITH TIME ZONE NOT NULL, length INTEGER NOT NULL,
        embedded BOOLEAN NOT NULL, tsv TSVECTOR, PRIMARY KEY (id), UNIQUE (path))""",
    "CREATE INDEX entries_unembedded ON entries (id) WHERE NOT embedded",
    "CREATE INDEX entries_category_updated ON entries (category, updated)",
    "CREATE INDEX entries_tags ON entries USING gin (tags)",
    "CREATE INDEX entries_updated ON entries (updated)",
    "CREATE INDEX entries_tsv ON entries USING gin (tsv)",
    """CREATE TABLE chunks (
        id BIGSERIAL NOT NULL, entry_id INTEGER NOT NULL, ord INTEGER NOT NULL,
        start INTEGER NOT NULL, embedding VECTOR(64), PRIMARY KEY (id),
        FOREIGN KEY(entry_id) REFERENCES entries (id) ON DELETE CASCADE)""",
    "CREATE INDEX ix_chunks_entry_id ON chunks (entry_id)",
    "CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)",
    """CREATE TABLE postings (
        term TEXT NOT NULL, entry_id INTEGER NOT NULL, tf INTEGER NOT NULL, dl INTEGER NOT NULL,
        PRIMARY KEY (term, entry_id),
        FOREIGN KEY(entry_id) REFERENCES entries (id) ON DELETE CASCADE)""",
    "CREATE INDEX postings_entry ON postings (entry_id)",
    "CREATE TABLE terms (term TEXT NOT NULL, df INTEGER NOT NULL, PRIMARY KEY (term))",
    "CREATE INDEX terms_prefix ON terms (term text_pattern_ops)",
    """CREATE TABLE links (
        id BIGSERIAL NOT NULL, source_id INTEGER NOT NULL, target_key TEXT NOT NULL,
        target_path TEXT, target_alt TEXT, context TEXT NOT NULL, PRIMARY KEY (id),
        FOREIGN KEY(source_id) REFERENCES entries (id) ON DELETE CASCADE)""",
    "CREATE INDEX ix_links_target_key ON links (target_key)",
    "CREATE INDEX ix_links_source_id ON links (source_id)",
    """CREATE TABLE index_meta (
        id INTEGER NOT NULL, last_commit VARCHAR, embedder VARCHAR, dimensions INTEGER,
        doc_count INTEGER NOT NULL, total_length BIGINT NOT NULL,
        recheck TEXT[] DEFAULT '{}' NOT NULL, PRIMARY KEY (id))""",
)

NOTES = (
    note("ideas/airship.md", "The zeppelin flight plan; it sleeps in the [[Hangar]]."),
    note("ideas/hangar.md", "Where the airship sleeps at night."),
    note("projects/garden.md", "Tomatoes and compost for the spring."),
)
EMBEDDER = HashingEmbedder(64)


async def _index_as_version_5(conn: AsyncConnection, entries: tuple[Entry, ...]) -> None:
    """The rows version 5's indexer wrote for `entries`, vectors included."""
    docs = [prepare(e) for e in entries]
    for doc in docs:
        entry_id = await conn.scalar(
            text(
                "INSERT INTO entries (path, category, title, status, tags, fields, body,"
                " content_hash, updated, length, embedded, tsv) VALUES (:path, :category,"
                " :title, NULL, :tags, CAST(:fields AS jsonb), :body, :hash, :updated, :length,"
                " true, to_tsvector('simple', :folded)) RETURNING id"
            ),
            {
                "path": doc.entry.path,
                "category": doc.entry.category,
                "title": doc.entry.title,
                "tags": doc.tags,
                "fields": doc.fields_json,
                "body": doc.entry.body,
                "hash": doc.entry.content_hash,
                "updated": doc.updated,
                "length": doc.length,
                "folded": doc.folded,
            },
        )
        for term, tf in doc.terms.items():
            await conn.execute(
                text("INSERT INTO postings VALUES (:term, :id, :tf, :dl)"),
                {"term": term, "id": entry_id, "tf": tf, "dl": doc.length},
            )
            await conn.execute(
                text(
                    "INSERT INTO terms VALUES (:term, 1)"
                    " ON CONFLICT (term) DO UPDATE SET df = terms.df + 1"
                ),
                {"term": term},
            )
        for number, chunk in enumerate(doc.chunks):
            await conn.execute(
                text(
                    "INSERT INTO chunks (entry_id, ord, start, embedding)"
                    " VALUES (:id, :ord, :start, CAST(:vector AS vector))"
                ),
                {
                    "id": entry_id,
                    "ord": number,
                    "start": chunk.start,
                    "vector": vector_literal(EMBEDDER.embed_one(chunk.text)),
                },
            )
        for link in doc.links:
            await conn.execute(
                text(
                    "INSERT INTO links (source_id, target_key, target_path, target_alt, context)"
                    " VALUES (:id, :key, :path, :alt, :context)"
                ),
                {
                    "id": entry_id,
                    "key": link.key,
                    "path": link.path,
                    "alt": link.alt,
                    "context": link.context,
                },
            )
    await conn.execute(
        text("INSERT INTO index_meta VALUES (1, 'c0ffee', :embedder, 64, :count, :length, '{}')"),
        {
            "embedder": EMBEDDER.name,
            "count": len(docs),
            "length": sum(d.length for d in docs),
        },
    )


async def _make_version_5(engine: AsyncEngine) -> None:
    await migrate(engine, MIGRATIONS[:5])
    async with engine.begin() as conn:
        await conn.execute(text(f"DROP TABLE {', '.join(INDEX_TABLES)} CASCADE"))
        for statement in _VERSION_5:
            await conn.execute(text(statement))
        await _index_as_version_5(conn, NOTES)


async def _schema(engine: AsyncEngine) -> dict[str, Any]:
    """The index tables' columns, constraints and indexes, in comparable form."""
    tables = {"tables": list(INDEX_TABLES)}
    async with engine.connect() as conn:
        columns = await conn.execute(
            text(
                "SELECT table_name, column_name, data_type, is_nullable, column_default"
                " FROM information_schema.columns"
                " WHERE table_name = ANY(CAST(:tables AS text[]))"
            ),
            tables,
        )
        constraints = await conn.execute(
            text(
                "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)"
                " FROM pg_constraint"
                " WHERE conrelid::regclass::text = ANY(CAST(:tables AS text[]))"
            ),
            tables,
        )
        indexes = await conn.execute(
            text(
                "SELECT tablename, indexname, indexdef FROM pg_indexes"
                " WHERE tablename = ANY(CAST(:tables AS text[]))"
            ),
            tables,
        )
        return {
            "columns": sorted(tuple(r) for r in columns),
            "constraints": sorted(tuple(r) for r in constraints),
            "indexes": sorted(tuple(r) for r in indexes),
        }


async def test_a_version_5_index_becomes_vault_1(empty_database_url: str) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await _make_version_5(engine)
        applied = await migrate(engine)
        assert [m.version for m in applied][:1] == [6]  # and every later one
        async with connected(empty_database_url) as database:
            index = await Index.open(database, EMBEDDER)
            assert not index.needs_embedding  # the vectors were kept, not dropped
            assert await index.last_commit() == "c0ffee"
            assert await index.count() == 3
            results = await index.search("zeppelin flight plan")
            assert results.mode == "hybrid"
            assert results.hits[0].path == "ideas/airship.md"
            query = EMBEDDER.embed_one("zeppelin flight plan")
            async with database.engine.connect() as conn:
                near = await vector_ranking(conn, 1, query, Filters(), 3)
                airship = await conn.scalar(
                    text("SELECT id FROM entries WHERE path = 'ideas/airship.md'")
                )
            assert near[0][0] == airship  # found by its old vector alone
            backlinks = await index.backlinks("ideas/hangar.md")
            assert [h.path for h in backlinks] == ["ideas/airship.md"]
            # Writing goes on where the old rows left off.
            await index.upsert([note("ideas/balloon.md", "A hot air balloon, not a zeppelin.")])
            assert {h.path for h in (await index.search("zeppelin")).hits[:2]} == {
                "ideas/airship.md",
                "ideas/balloon.md",
            }
        migrated = await _schema(engine)
        async with engine.begin() as conn:
            await conn.execute(text(f"DROP TABLE {', '.join(INDEX_TABLES)} CASCADE"))
            await conn.run_sync(SQLModel.metadata.create_all)
        async with connected(empty_database_url) as database:
            await Index.open(database, EMBEDDER)
        assert migrated == await _schema(engine)
    finally:
        await engine.dispose()


async def test_on_a_fresh_database_the_step_changes_nothing(empty_database_url: str) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:5])
        fresh = await _schema(engine)
        assert [m.version for m in await migrate(engine, MIGRATIONS[:6])] == [6]
        assert await _schema(engine) == fresh
    finally:
        await engine.dispose()
