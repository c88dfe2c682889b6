"""Migration 8 on a database from before reminders: the reminder log appears, the
digest log learns retries and keeps its rows, the reminder index is made."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.digest_log import DigestKey, DigestLog
from storage.db.engine import async_url
from storage.db.migrations import MIGRATIONS, migrate

NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


async def test_a_version_7_database_gets_reminders_and_digest_retries(
    empty_database_url: str,
) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:7])
        async with engine.begin() as conn:
            # What a version-7 database had: no reminder log, no retry columns.
            await conn.execute(text("DROP TABLE reminder_log"))
            await conn.execute(text("DROP INDEX entries_reminders"))
            await conn.execute(
                text("ALTER TABLE digest_log DROP COLUMN attempts, DROP COLUMN next_attempt_at")
            )
            await conn.execute(
                text(
                    "INSERT INTO users (id, name, digest_enabled, weekly_day, created_at)"
                    " VALUES (1, 'Ada', true, 6, now())"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO digest_log (user_id, local_date, kind, status, due_at,"
                    " claimed_at, detail) VALUES (1, '2026-11-22', 'daily', 'sent', now(),"
                    " now(), '')"
                )
            )
        applied = await migrate(engine)
        assert [m.version for m in applied][:1] == [8]  # and any later ones
        (kept,) = await DigestLog(engine).entries(1)
        assert (kept.local_date, kept.status, kept.attempts) == (date(2026, 11, 22), "sent", 1)
        async with engine.connect() as conn:
            tables = await conn.scalar(text("SELECT to_regclass('reminder_log') IS NOT NULL"))
            index = await conn.scalar(text("SELECT to_regclass('entries_reminders') IS NOT NULL"))
        assert tables and index
        # A retry can be recorded on the old row's table.
        key = DigestKey(1, date(2026, 11, 23), "daily")
        digests = DigestLog(engine)
        assert await digests.claim(key, due_at=NOW, now=NOW)
        await digests.finish(key, status="retrying", now=NOW, next_attempt_at=NOW)
        assert (await digests.reclaim(key, NOW)) is not None
        assert (await digests.reclaim(key, NOW)) is None  # taken once only
    finally:
        await engine.dispose()
