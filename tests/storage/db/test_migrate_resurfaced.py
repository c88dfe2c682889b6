"""The migration that adds `resurfaced`, on a database made before it: the table
comes, and what the digest brings back is recorded and lowered there."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from storage.db.resurfaced import Resurfaced
from storage.migrations import MIGRATIONS, migrate

STEP = next(i for i, m in enumerate(MIGRATIONS) if m.name.startswith("resurfaced"))
NOW = datetime(2026, 11, 20, 8, tzinfo=UTC)


async def test_an_older_database_gets_the_record_of_resurfaced_notes(
    empty_database_url: str,
) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:STEP])
        async with engine.begin() as conn:
            # Step 1 now makes every table; a database from before had no such one.
            await conn.execute(text("DROP TABLE resurfaced"))
        assert [m.version for m in await migrate(engine)][:1] == [17]  # and every later one
        resurfaced = Resurfaced(engine)
        day = date(2026, 11, 20)
        await resurfaced.record_shown(3, ["ideas/a.md", "ideas/b.md"], day)
        await resurfaced.record_shown(3, ["ideas/a.md"], day)  # composed again that day
        await resurfaced.record_shown(3, ["ideas/a.md"], date(2026, 12, 20))
        # A digest composed for an earlier date (`brainbot digest --date`) moves nothing back.
        await resurfaced.record_shown(3, ["ideas/a.md"], date(2026, 12, 1))
        assert await resurfaced.lower(3, "ideas/a.md", NOW) == 0.5
        assert await resurfaced.lower(3, "ideas/c.md", NOW) == 0.5
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text("SELECT path, times_shown, last_shown FROM resurfaced ORDER BY path")
                )
            ).all()
        assert [tuple(r) for r in rows] == [
            ("ideas/a.md", 3, date(2026, 12, 20)),
            ("ideas/b.md", 1, day),
            ("ideas/c.md", 0, None),
        ]
    finally:
        await engine.dispose()
