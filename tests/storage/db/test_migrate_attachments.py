"""The migration that drops `.md` files under attachments/ from the index, on a
database whose index holds some (they were indexed as notes before): their rows go,
with what they counted, in every vault; the notes stay."""

from __future__ import annotations

from sqlalchemy import text

from storage.index.index import Index
from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import connected, note

STEP = next(i for i, m in enumerate(MIGRATIONS) if m.name.startswith("entries: files under"))


async def test_attachments_indexed_before_leave_the_index(empty_database_url: str) -> None:
    async with connected(empty_database_url) as database:
        await migrate(database.engine, MIGRATIONS[:STEP])
        for vault_id in (1, 2):
            index = await Index.open(database, None, vault_id=vault_id)
            await index.upsert(
                [
                    note("attachments/minutes.md", "The gannet budget."),
                    note("ideas/gannet.md", "A gannet over the sea."),
                ]
            )
        applied = [m.version for m in await migrate(database.engine)]
        assert applied == [m.version for m in MIGRATIONS[STEP:]]
        for vault_id in (1, 2):
            index = await Index.open(database, None, vault_id=vault_id)
            assert await index.paths() == ["ideas/gannet.md"]
            assert [hit.path for hit in (await index.search("gannet")).hits] == ["ideas/gannet.md"]
            assert (await index.search("budget")).hits == ()
        async with database.engine.connect() as conn:
            counts = (
                await conn.execute(
                    text(
                        "SELECT doc_count, (SELECT df FROM terms t WHERE t.vault_id = m.vault_id"
                        " AND t.term = 'gannet') FROM index_meta m ORDER BY vault_id"
                    )
                )
            ).all()
        assert [tuple(row) for row in counts] == [(1, 1), (1, 1)]
