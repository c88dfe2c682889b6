"""The migration that reads each indexed note's `due` day once, as storage.text reads it
(and its `created` where it was indexed before that column): on a database whose
index has neither, the digest's queries then find them in their columns."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import text

from storage.index.index import Index
from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import connected, note

STEP = next(m for m in MIGRATIONS if m.name.startswith("entries.due"))


async def test_due_days_and_creation_times_are_read_into_their_columns(
    empty_database_url: str,
) -> None:
    async with connected(empty_database_url) as database:
        await migrate(database.engine)
        index = await Index.open(database, None)
        await index.upsert(
            [
                note("admin/visa.md", "Renew.", due="2026-12-01T09:00", created="2026-11-02"),
                note("admin/odd.md", "Odd.", due="2026-02-30"),
                note("ideas/tea.md", "Tea."),
            ]
        )
        async with database.engine.begin() as conn:  # as a database before the step was
            await conn.execute(text("ALTER TABLE entries DROP COLUMN due"))
            await conn.execute(text("UPDATE entries SET created = NULL"))
            await conn.execute(
                text("DELETE FROM schema_version WHERE version = :v"), {"v": STEP.version}
            )
        assert [m.version for m in await migrate(database.engine)] == [STEP.version]
        async with database.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT path, due, created FROM entries"))).all()
    assert {row.path: (row.due, row.created) for row in rows} == {
        "admin/visa.md": (date(2026, 12, 1), datetime(2026, 11, 2, tzinfo=UTC)),
        "admin/odd.md": (None, None),
        "ideas/tea.md": (None, None),
    }
