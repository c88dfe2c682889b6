"""Migrations 8 and 10 on databases made before them: a version 7 database gets
reminders and retries; a version 9 database's digest log and reminder log become the
one send ledger, rows and all, so nothing sent before the upgrade is sent again."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from storage.db.connection import async_url
from storage.db.send_ledger import DigestKey, ReminderKey, SendLedger
from storage.migrations import MIGRATIONS, migrate

NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
REMIND_AT = datetime(2026, 11, 22, 9, 30, 15, 250_000, tzinfo=UTC)
# The digest log as versions 1 to 9 made it (step 8 added the last two columns).
_DIGEST_LOG = """CREATE TABLE digest_log (
    user_id INTEGER NOT NULL REFERENCES users (id), local_date DATE NOT NULL,
    kind VARCHAR NOT NULL, status VARCHAR NOT NULL, due_at TIMESTAMPTZ NOT NULL,
    claimed_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, platform VARCHAR,
    chat_id VARCHAR, message_id VARCHAR, detail TEXT DEFAULT '' NOT NULL,
    PRIMARY KEY (user_id, local_date, kind))"""


async def _as_it_was(conn: AsyncConnection, *, retries: bool) -> None:
    """The tables of before the ledger: step 1 now makes the ledger instead."""
    await conn.execute(text("DROP TABLE send_ledger"))
    await conn.execute(text(_DIGEST_LOG))
    if retries:
        await conn.execute(
            text(
                "ALTER TABLE digest_log ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1,"
                " ADD COLUMN next_attempt_at TIMESTAMPTZ"
            )
        )
    await conn.execute(
        text(
            "INSERT INTO users (id, name, digest_enabled, weekly_day, created_at)"
            " VALUES (1, 'Ada', true, 6, now())"
        )
    )
    await conn.execute(
        text(
            "INSERT INTO digest_log (user_id, local_date, kind, status, due_at, claimed_at,"
            " message_id, detail) VALUES (1, '2026-11-22', 'daily', 'sent', now(), now(),"
            " 'm1', '')"
        )
    )


async def test_a_version_7_database_gets_reminders_and_digest_retries(
    empty_database_url: str,
) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:7])
        async with engine.begin() as conn:
            await _as_it_was(conn, retries=False)
            await conn.execute(text("DROP INDEX entries_reminders"))
        applied = await migrate(engine)
        assert [m.version for m in applied] == [m.version for m in MIGRATIONS if m.version >= 8]
        ledger = SendLedger(engine)
        (kept,) = await ledger.entries("digest", user_id=1)
        assert (kept.local_date, kept.status, kept.attempts) == (date(2026, 11, 22), "sent", 1)
        assert kept.message_id == "m1"
        async with engine.connect() as conn:
            index = await conn.scalar(text("SELECT to_regclass('entries_reminders') IS NOT NULL"))
            old = await conn.scalar(
                text(
                    "SELECT to_regclass('digest_log') IS NULL"
                    " AND to_regclass('reminder_log') IS NULL"
                )
            )
        assert index and old
        # The day already sent is not sent again; a retry of a new one is taken once.
        assert not await ledger.claim(
            DigestKey(1, date(2026, 11, 22), "daily"), due_at=NOW, now=NOW
        )
        key = DigestKey(1, date(2026, 11, 23), "daily")
        assert await ledger.claim(key, due_at=NOW, now=NOW)
        await ledger.finish(key, status="retrying", now=NOW, next_attempt_at=NOW)
        assert (await ledger.reclaim(key, NOW)) is not None
        assert (await ledger.reclaim(key, NOW)) is None  # taken once only
    finally:
        await engine.dispose()


async def test_a_version_9_databases_two_logs_become_one_ledger(empty_database_url: str) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine, MIGRATIONS[:9])
        async with engine.begin() as conn:
            await _as_it_was(conn, retries=True)
            await conn.execute(
                text(
                    "INSERT INTO reminder_log (vault_id, note_id, remind_at, user_id, path, title,"
                    " status, attempts, claimed_at, next_attempt_at, detail) VALUES (2, 'n1',"
                    " :at, 1, 'admin/passport.md', 'Passport', 'retrying', 2, now(), :at, 'down')"
                ),
                {"at": REMIND_AT},
            )
        assert [m.version for m in await migrate(engine)] == [
            m.version for m in MIGRATIONS if m.version >= 10
        ]
        ledger = SendLedger(engine)
        (digest,) = await ledger.entries("digest")
        (reminder,) = await ledger.entries("reminder", vault_id=2)
        # The keys the migration wrote are the keys the code looks for.
        assert digest.key == DigestKey(1, date(2026, 11, 22), "daily").ledger_key
        reminder_key = ReminderKey(2, "n1", REMIND_AT)
        assert reminder.key == reminder_key.ledger_key and reminder.reminder == reminder_key
        assert (reminder.path, reminder.title, reminder.attempts) == (
            "admin/passport.md",
            "Passport",
            2,
        )
        assert await ledger.handled(2, ["n1"]) == {("n1", REMIND_AT)}
        assert not await ledger.claim(reminder_key, now=NOW, user_id=1, path="p", title="t")
        (due,) = await ledger.retries_due("reminder", NOW)
        assert due.reminder == reminder_key
    finally:
        await engine.dispose()
