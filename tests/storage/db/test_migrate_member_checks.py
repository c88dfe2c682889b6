"""The migration that adds `vault_members.checked_at`, on a database made before it:
each team member's last confirmation is when they joined, so their first use of the
team asks the chat about them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from storage.migrations import MIGRATIONS, migrate

JOINED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
STEP = next(i for i, m in enumerate(MIGRATIONS) if m.name.startswith("vault_members.checked_at"))


async def test_members_from_before_the_checks_were_last_confirmed_when_they_joined(
    empty_database_url: str,
) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:STEP])
        async with engine.begin() as conn:
            # Step 7 now makes the column; a database from before had none.
            await conn.execute(text("ALTER TABLE vault_members DROP COLUMN checked_at"))
            await conn.execute(
                text(
                    "INSERT INTO vaults (id, name, kind, created_at) VALUES (5, 'ops', 'team', :t)"
                ),
                {"t": JOINED},
            )
            await conn.execute(
                text("INSERT INTO vault_members (vault_id, user_id, joined_at) VALUES (5, 7, :t)"),
                {"t": JOINED},
            )
        assert MIGRATIONS[STEP] in await migrate(engine)
        async with engine.connect() as conn:
            checked = await conn.scalar(text("SELECT checked_at FROM vault_members"))
            nullable = await conn.scalar(
                text(
                    "SELECT is_nullable FROM information_schema.columns"
                    " WHERE table_name = 'vault_members' AND column_name = 'checked_at'"
                )
            )
        assert checked == JOINED and nullable == "NO"
    finally:
        await engine.dispose()
