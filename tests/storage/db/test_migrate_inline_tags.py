"""The migration that reads the `#tags` in each indexed note's body: on a database
indexed before, `tag:reading` then finds the notes tagged inline."""

from __future__ import annotations

from sqlalchemy import text

from storage.index.index import Index
from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import connected, note

STEP = next(m for m in MIGRATIONS if m.name.startswith("entries.tags"))


async def test_inline_tags_of_indexed_notes_are_read_once(empty_database_url: str) -> None:
    async with connected(empty_database_url) as database:
        await migrate(database.engine)
        index = await Index.open(database, None)
        await index.upsert(
            [
                note("ideas/novel.md", "Finished it #reading #books/scifi"),
                note("ideas/tea.md", "Tea.", tags=["drinks"]),
            ]
        )
        async with database.engine.begin() as conn:  # as the index was before the step
            await conn.execute(text("UPDATE entries SET tags = '{}' WHERE path = 'ideas/novel.md'"))
            await conn.execute(
                text("DELETE FROM schema_version WHERE version = :v"), {"v": STEP.version}
            )
        assert [m.version for m in await migrate(database.engine)] == [STEP.version]
        found = await index.search("tag:reading")
    assert [hit.path for hit in found.hits] == ["ideas/novel.md"]
    async with connected(empty_database_url) as database, database.engine.connect() as conn:
        rows = (await conn.execute(text("SELECT path, tags FROM entries ORDER BY path"))).all()
    assert {row.path: row.tags for row in rows} == {
        "ideas/novel.md": ["books", "books/scifi", "reading"],
        "ideas/tea.md": ["drinks"],
    }
