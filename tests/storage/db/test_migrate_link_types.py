"""Migration 16: link types and the names notes are mentioned by. An index made
before it (links without a type, no names) gets both from the text it holds, in
every vault, without reading the vault or embedding a note again."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import connected, opened_store

STEP = next(m for m in MIGRATIONS if m.name.startswith("links.relation"))


async def _as_before(database_url: str) -> None:
    """The database as an older brainbot left it: untyped links, no names."""
    async with connected(database_url) as database, database.engine.begin() as conn:
        await conn.execute(text("ALTER TABLE links DROP COLUMN relation"))
        await conn.execute(text("DROP TABLE note_names"))
        await conn.execute(
            text("DELETE FROM schema_version WHERE version = :v"), {"v": STEP.version}
        )


async def test_an_older_index_gets_link_types_and_names_without_reembedding(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        acme = await store.create("projects", "Acme Corp", "A client.", {"aliases": ["Acme"]})
        sarah = await store.create("people", "Sarah Kim", "- works_at [[acme-corp]]\nHi.")
        await store.create("ideas", "Lunch", "With [[Sarah Kim]] at [[acme-corp]].")
    await _as_before(database_url)
    async with connected(database_url) as database:
        async with database.engine.connect() as conn:
            chunks_before = await conn.scalar(text("SELECT count(*) FROM chunks"))
            assert chunks_before
        applied = await migrate(database.engine)
        assert [m.version for m in applied] == [STEP.version]
        async with database.engine.connect() as conn:
            names = set(
                (await conn.execute(text("SELECT name FROM note_names ORDER BY name"))).scalars()
            )
            chunks_after = await conn.scalar(text("SELECT count(*) FROM chunks"))
            embedded = await conn.scalar(text("SELECT bool_and(embedded) FROM entries"))
        assert names == {"Acme", "Acme Corp", "Sarah Kim", "Lunch"}
        assert chunks_after == chunks_before and embedded
        # A second run finds nothing to do.
        assert await migrate(database.engine) == []
    async with opened_store(tmp_path / "vault", database_url) as store:
        links = {h.path: h.relations for h in await store.backlinks(acme.path)}
        assert links == {sarah.path: ("works_at",), "ideas/lunch.md": ()}
        assert [h.path for h in (await store.search("linked:works_at:[[Acme Corp]]")).hits] == [
            sarah.path
        ]
