"""The days a question named, as a search filter (`filed`): notes filed in them by
their `created` (a note without one by its last change), whole days in the person's
zone; with `or_changed`, notes changed in them too. And the migration that gives an
older index the `created` column."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from storage.index.filters import Filters
from storage.migrations import MIGRATIONS, migrate
from tests.storage.index.index_support import note, opened_index

BERLIN = ZoneInfo("Europe/Berlin")
NOTES = [
    # Filed at 23:30 on the 23rd in Berlin (22:30 UTC).
    note("ideas/late.md", "budget idea", created="2026-11-23T23:30:00", timezone="Europe/Berlin"),
    # Filed on the 24th just after midnight in Berlin: still the 23rd in UTC.
    note("ideas/early.md", "budget plan", created="2026-11-24T00:30:00", timezone="Europe/Berlin"),
    # Filed long ago, changed on the 23rd.
    note(
        "projects/old.md",
        "budget review",
        created="2026-09-01T10:00:00",
        updated="2026-11-23T12:00:00",
        timezone="Europe/Berlin",
    ),
    # No `created`: its last change counts.
    note("inbox/bare.md", "budget scrap", updated="2026-11-23T12:00:00"),
]


def _day(day: date, *, or_changed: bool = False) -> Filters:
    return Filters(created_after=day, created_before=day, or_changed=or_changed, filed_zone=BERLIN)


async def test_a_day_is_the_persons_day_and_filed_means_created(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)

        async def paths(query: str, filed: Filters) -> set[str]:
            return {h.path for h in (await index.search(query, filed=filed)).hits}

        the_23rd = date(2026, 11, 23)
        assert await paths("", _day(the_23rd)) == {"ideas/late.md", "inbox/bare.md"}
        assert await paths("budget", _day(the_23rd)) == {"ideas/late.md", "inbox/bare.md"}
        assert await paths("budget", _day(the_23rd, or_changed=True)) == {
            "ideas/late.md",
            "inbox/bare.md",
            "projects/old.md",
        }
        assert await paths("", _day(date(2026, 11, 24))) == {"ideas/early.md"}
        open_ended = Filters(created_before=date(2026, 9, 30), filed_zone=BERLIN)
        assert await paths("budget", open_ended) == {"projects/old.md"}
        nothing = await index.search("budget", filed=_day(date(2026, 11, 25)))
        assert nothing.hits == ()
        assert nothing.empty is not None and "filed on 2026-11-25" in nothing.empty


async def test_an_index_from_before_gets_the_created_column(empty_database_url: str) -> None:
    step = next(i for i, m in enumerate(MIGRATIONS) if m.name.startswith("entries.created"))
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:step])
        async with engine.begin() as conn:
            await conn.execute(text("ALTER TABLE entries DROP COLUMN created"))
        assert MIGRATIONS[step] in await migrate(engine)
        async with engine.connect() as conn:
            kind = await conn.scalar(
                text(
                    "SELECT data_type FROM information_schema.columns"
                    " WHERE table_name = 'entries' AND column_name = 'created'"
                )
            )
        assert kind == "timestamp with time zone"
    finally:
        await engine.dispose()
