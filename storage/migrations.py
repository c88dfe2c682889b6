"""Database schema migrations, so an upgrade of brainbot keeps the data it has.

They live above `storage.db` and `storage.index` because a step may need both: the
tables are the database's, and re-deriving rows from indexed text (step 16) or
dropping what the index no longer counts as a note (step 18) is the index's
knowledge. The database itself knows nothing of the index.

A small versioned step rather than Alembic, because:
- the schema is brainbot's alone and is declared once, in the SQLModel classes;
  Alembic would add a second description of it (revision files) to keep in step,
  and its autogenerate cannot express what the index decides at run time (the
  length of the vector column follows the embedder);
- what an upgrade has needed is small and additive (a table, a column, an index),
  which plain SQL says in a line.

How it works: `schema_version` holds one row per applied step. At start,
`migrate` takes a transaction-scoped advisory lock (several processes may start
at once; the second waits, then finds nothing to do), runs the steps not applied
yet in order and records them, all in one transaction: Postgres DDL is
transactional, so a step that fails leaves the database as it was. Step 1 creates
the tables from the current models; each later step is written to be a no-op on
a database step 1 created (IF NOT EXISTS), and adds what an older database lacks.
A database newer than this code is refused rather than used half-understood.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlmodel import SQLModel

import storage.db.admission
import storage.db.chat_tables
import storage.db.digest_messages
import storage.db.email_codes
import storage.db.enrichments
import storage.db.index_tables
import storage.db.mcp_tokens
import storage.db.resurfaced
import storage.db.send_ledger
import storage.db.skipped
import storage.db.vault_tables  # (these modules register every table)
from storage.errors import DatabaseUnavailable
from storage.index.indexer import remove as remove_notes
from storage.index.rederive import rederive_dates, rederive_links_and_names, rederive_tags

_MIGRATION_LOCK = 0x6272_6169_6E6D

Step = Callable[[AsyncConnection], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    step: Step


async def _create_tables(conn: AsyncConnection) -> None:
    # Only the tables missing (step 21: conversation_summaries); later steps are no-ops.
    await conn.run_sync(SQLModel.metadata.create_all)


def _add_column(table: str, column: str) -> Step:
    """A step that adds `column` (its name and type) to `table`."""

    async def step(conn: AsyncConnection) -> None:
        await conn.execute(text(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column}"))

    return step


_event_owner = _add_column("inbound_events", "owner INTEGER NOT NULL DEFAULT 0")
_entry_created = _add_column("entries", "created TIMESTAMPTZ")
_name_changes = _add_column("index_meta", "name_changes bigint NOT NULL DEFAULT 0")


async def _tool_call_event_key(conn: AsyncConnection) -> None:
    await _add_column("tool_calls", "event_key VARCHAR NOT NULL DEFAULT ''")(conn)
    await conn.execute(
        text("CREATE INDEX IF NOT EXISTS ix_tool_calls_event_key ON tool_calls (event_key)")
    )


async def _inbound_files(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.chat_tables.FILES])


async def _admission(conn: AsyncConnection) -> None:
    await conn.run_sync(
        SQLModel.metadata.create_all,
        tables=[storage.db.admission.CLAIM_CODES, storage.db.admission.ADMITTED],
    )


_VAULT_TABLES = ("entries", "chunks", "postings", "terms", "links")
# Indexes of the single-vault index, replaced by ones that lead with the vault.
_SINGLE_VAULT_INDEXES = (
    "entries_category_updated",
    "entries_updated",
    "entries_unembedded",
    "terms_prefix",
    "ix_links_target_key",
)


async def _exists(conn: AsyncConnection, sql: str, params: dict[str, str]) -> bool:
    return bool(await conn.scalar(text(f"SELECT EXISTS ({sql})"), params))


async def _has_column(conn: AsyncConnection, table: str, column: str) -> bool:
    return await _exists(
        conn,
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = :table AND column_name = :column",
        {"table": table, "column": column},
    )


async def _has_constraint(conn: AsyncConnection, table: str, name: str) -> bool:
    return await _exists(
        conn,
        "SELECT 1 FROM information_schema.table_constraints WHERE table_schema = current_schema()"
        " AND table_name = :table AND constraint_name = :name",
        {"table": table, "name": name},
    )


async def _primary_key(conn: AsyncConnection, table: str) -> tuple[str, list[str]]:
    rows = list(
        await conn.execute(
            text(
                "SELECT c.constraint_name, k.column_name"
                " FROM information_schema.table_constraints c"
                " JOIN information_schema.key_column_usage k"
                " ON k.constraint_schema = c.constraint_schema"
                " AND k.constraint_name = c.constraint_name"
                " WHERE c.table_schema = current_schema() AND c.table_name = :table"
                " AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position"
            ),
            {"table": table},
        )
    )
    return rows[0].constraint_name, [r.column_name for r in rows]


async def _index_vaults(conn: AsyncConnection) -> None:
    """Every row of the index names its vault; the one vault indexed so far is vault 1.
    Keys and indexes lead with the vault, so each vault reads its rows as one range."""
    if await _has_column(conn, "index_meta", "id"):
        await conn.execute(text("ALTER TABLE index_meta RENAME COLUMN id TO vault_id"))
        # PostgreSQL 18 names NOT NULL constraints after their column and keeps the name
        # through a rename: the one a fresh table's column has.
        if await _exists(
            conn,
            "SELECT 1 FROM pg_constraint WHERE conrelid = 'index_meta'::regclass"
            " AND conname = 'index_meta_id_not_null'",
            {},
        ):
            await conn.execute(
                text(
                    "ALTER TABLE index_meta"
                    " RENAME CONSTRAINT index_meta_id_not_null TO index_meta_vault_id_not_null"
                )
            )
    for table in _VAULT_TABLES:
        await conn.execute(
            text(
                f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS vault_id integer NOT NULL DEFAULT 1"
            )
        )
        # New rows must name their vault: a forgotten one is an error, not vault 1.
        await conn.execute(text(f"ALTER TABLE {table} ALTER COLUMN vault_id DROP DEFAULT"))
    for table, key in (("postings", "vault_id, term, entry_id"), ("terms", "vault_id, term")):
        name, columns = await _primary_key(conn, table)
        if "vault_id" not in columns:
            await conn.execute(
                text(f"ALTER TABLE {table} DROP CONSTRAINT {name}, ADD PRIMARY KEY ({key})")
            )
    if not await _has_constraint(conn, "entries", "entries_vault_path"):
        await conn.execute(
            text(
                "ALTER TABLE entries DROP CONSTRAINT IF EXISTS entries_path_key,"
                " ADD CONSTRAINT entries_vault_path UNIQUE (vault_id, path)"
            )
        )
    for name in _SINGLE_VAULT_INDEXES:
        await conn.execute(text(f"DROP INDEX IF EXISTS {name}"))
    for table in _VAULT_TABLES:
        for index in SQLModel.metadata.tables[table].indexes:
            await conn.run_sync(index.create, checkfirst=True)


async def _vaults(conn: AsyncConnection) -> None:
    vault_tables = storage.db.vault_tables
    await conn.run_sync(
        SQLModel.metadata.create_all, tables=[vault_tables.VAULTS, vault_tables.VAULT_MEMBERS]
    )
    # The vault an install had before private vaults becomes its first person's.
    await conn.execute(
        text(
            "INSERT INTO vaults (id, name, kind, user_id, created_at)"
            " VALUES (1, 'vault', 'person', (SELECT min(id) FROM users), now())"
            " ON CONFLICT (id) DO NOTHING"
        )
    )
    await conn.execute(
        text(
            "SELECT setval(pg_get_serial_sequence('vaults', 'id'), greatest(max(id), 1))"
            " FROM vaults"
        )
    )
    for table in ("approvals", "button_actions"):
        await conn.execute(
            text(
                f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS vault_id INTEGER NOT NULL DEFAULT 1"
            )
        )


# The reminder log as step 8 made it; step 10 moves its rows into the send ledger.
_REMINDER_LOG = (
    """CREATE TABLE IF NOT EXISTS reminder_log (
        vault_id INTEGER NOT NULL, note_id TEXT NOT NULL,
        remind_at TIMESTAMP WITH TIME ZONE NOT NULL, user_id INTEGER, path TEXT NOT NULL,
        title TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER DEFAULT 1 NOT NULL,
        claimed_at TIMESTAMP WITH TIME ZONE NOT NULL, finished_at TIMESTAMP WITH TIME ZONE,
        next_attempt_at TIMESTAMP WITH TIME ZONE, platform VARCHAR, chat_id VARCHAR,
        detail TEXT DEFAULT '' NOT NULL, PRIMARY KEY (vault_id, note_id, remind_at))""",
    "CREATE INDEX IF NOT EXISTS ix_reminder_log_user_id ON reminder_log (user_id)",
)


async def _reminders(conn: AsyncConnection) -> None:
    for statement in _REMINDER_LOG:
        await conn.execute(text(statement))
    await conn.execute(
        text(
            "ALTER TABLE IF EXISTS digest_log"
            " ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 1,"
            " ADD COLUMN IF NOT EXISTS next_attempt_at TIMESTAMPTZ"
        )
    )
    for index in SQLModel.metadata.tables["entries"].indexes:
        await conn.run_sync(index.create, checkfirst=True)


async def _mcp_tokens(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.mcp_tokens.MCP_TOKENS])


# The digest log and the reminder log were one ledger written twice: their rows move
# into send_ledger with the keys storage.db.send_ledger gives them.
_INTO_THE_LEDGER = {
    "digest_log": """
        INSERT INTO send_ledger (what, key, due_at, user_id, local_date, kind, status,
            attempts, claimed_at, finished_at, next_attempt_at, platform, chat_id,
            message_id, detail)
        SELECT 'digest', user_id || '/' || to_char(local_date, 'YYYY-MM-DD') || '/' || kind,
            due_at, user_id, local_date, kind, status, attempts, claimed_at, finished_at,
            next_attempt_at, platform, chat_id, message_id, detail
        FROM digest_log ON CONFLICT DO NOTHING""",
    "reminder_log": """
        INSERT INTO send_ledger (what, key, due_at, user_id, vault_id, note_id, path, title,
            status, attempts, claimed_at, finished_at, next_attempt_at, platform, chat_id,
            detail)
        SELECT 'reminder',
            vault_id || '/' || note_id || '/'
                || (extract(epoch FROM remind_at) * 1000000)::bigint,
            remind_at, user_id, vault_id, note_id, path, title, status, attempts, claimed_at,
            finished_at, next_attempt_at, platform, chat_id, detail
        FROM reminder_log ON CONFLICT DO NOTHING""",
}


async def _send_ledger(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.send_ledger.SENDS])
    for table, copy in _INTO_THE_LEDGER.items():
        if await conn.scalar(text(f"SELECT to_regclass('{table}') IS NOT NULL")):
            await conn.execute(text(copy))
            await conn.execute(text(f"DROP TABLE {table}"))


async def _skipped_items(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.skipped.SKIPPED])


async def _member_checks(conn: AsyncConnection) -> None:
    # A member from before the checks was last confirmed when they joined: the first
    # use of their membership asks the platform whether they are still in the chat.
    await conn.execute(
        text("ALTER TABLE vault_members ADD COLUMN IF NOT EXISTS checked_at TIMESTAMPTZ")
    )
    await conn.execute(
        text("UPDATE vault_members SET checked_at = joined_at WHERE checked_at IS NULL")
    )
    await conn.execute(text("ALTER TABLE vault_members ALTER COLUMN checked_at SET NOT NULL"))


async def _enrichments(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.enrichments.ENRICHMENTS])


async def _email_codes(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.email_codes.EMAIL_CODES])


async def _link_types(conn: AsyncConnection) -> None:
    await conn.execute(text("ALTER TABLE links ADD COLUMN IF NOT EXISTS relation TEXT"))
    await conn.run_sync(
        SQLModel.metadata.create_all, tables=[SQLModel.metadata.tables["note_names"]]
    )
    await rederive_links_and_names(conn)


async def _resurfaced(conn: AsyncConnection) -> None:
    await conn.run_sync(SQLModel.metadata.create_all, tables=[storage.db.resurfaced.RESURFACED])


async def _attachments_unindexed(conn: AsyncConnection) -> None:
    # A `.md` file kept under attachments/ was indexed as a note; it is an attachment
    # (storage.vault.paths.is_note_path). Its rows go, with what they counted.
    rows = await conn.execute(
        text(
            "SELECT vault_id, array_agg(path) AS paths FROM entries"
            " WHERE path LIKE 'attachments/%' GROUP BY vault_id"
        )
    )
    for row in rows.all():
        await remove_notes(conn, row.vault_id, row.paths)


async def _entry_due(conn: AsyncConnection) -> None:
    await conn.execute(text("ALTER TABLE entries ADD COLUMN IF NOT EXISTS due DATE"))
    # Every note's `due` day, and its `created` where it was indexed before that column.
    await rederive_dates(conn)


async def _inline_tags(conn: AsyncConnection) -> None:
    await rederive_tags(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "create the tables brainbot had when migrations began", _create_tables),
    Migration(2, "tool_calls.event_key: the event that caused each call", _tool_call_event_key),
    Migration(3, "inbound_events.owner: the process handling each event", _event_owner),
    Migration(4, "inbound_files: files kept with their event until it is handled", _inbound_files),
    Migration(5, "claim_codes, admitted_identities: who may use a closed install", _admission),
    Migration(6, "index tables carry the vault", _index_vaults),
    Migration(7, "vaults, vault_members: one vault per person, team vaults", _vaults),
    Migration(8, "reminder_log, digest retries, the index of notes with reminders", _reminders),
    Migration(9, "mcp_tokens: bearer tokens of MCP clients, one person each", _mcp_tokens),
    Migration(10, "send_ledger: one ledger of digests and reminders sent", _send_ledger),
    Migration(11, "skipped_items: bad notes and jobs skipped, for doctor", _skipped_items),
    Migration(12, "vault_members.checked_at: when each member was confirmed", _member_checks),
    Migration(13, "enrichments: links, photos and documents still to be read", _enrichments),
    Migration(14, "entries.created: when each note was filed", _entry_created),
    Migration(15, "email_codes: addresses being verified for mail in", _email_codes),
    Migration(16, "links.relation, note_names: link types and mentionable names", _link_types),
    Migration(17, "resurfaced: older notes the digest brought back", _resurfaced),
    Migration(18, "entries: files under attachments/ are no notes", _attachments_unindexed),
    Migration(19, "entries.due: each note's due day, read once as notetext reads it", _entry_due),
    Migration(20, "entries.tags: the #tags written in each note's body too", _inline_tags),
    Migration(21, "conversation_summaries: older turns of a chat, summarised", _create_tables),
    Migration(22, "index_meta.name_changes: when people and projects change", _name_changes),
)
LATEST = MIGRATIONS[-1].version

_CREATE_VERSION_TABLE = text(
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " applied_at TIMESTAMPTZ NOT NULL)"
)


class SchemaTooNew(DatabaseUnavailable):
    """The database was migrated by a newer brainbot than this one."""


async def applied_versions(engine: AsyncEngine) -> list[int]:
    """Versions recorded in `schema_version` (empty before the first migration)."""
    async with engine.connect() as conn:
        exists = await conn.scalar(text("SELECT to_regclass('schema_version') IS NOT NULL"))
        if not exists:
            return []
        rows = await conn.execute(text("SELECT version FROM schema_version ORDER BY version"))
        return [int(row[0]) for row in rows]


async def migrate(
    engine: AsyncEngine, migrations: tuple[Migration, ...] = MIGRATIONS
) -> list[Migration]:
    """Apply the migrations this database lacks, in order, under an advisory lock;
    returns those applied now. SchemaTooNew when the database is ahead of this code."""
    applied_now: list[Migration] = []
    async with engine.begin() as conn:
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        await conn.execute(_CREATE_VERSION_TABLE)
        done = {int(v) for v in await conn.scalars(text("SELECT version FROM schema_version"))}
        newest = max((m.version for m in migrations), default=0)
        if done and max(done) > newest:
            raise SchemaTooNew(
                f"the database schema is at version {max(done)}, newer than this brainbot "
                f"knows ({newest}); run the newer brainbot, or restore a backup of the database"
            )
        for migration in sorted(migrations, key=lambda m: m.version):
            if migration.version in done:
                continue
            await migration.step(conn)
            await conn.execute(
                text("INSERT INTO schema_version (version, name, applied_at) VALUES (:v, :n, :t)"),
                {"v": migration.version, "n": migration.name, "t": datetime.now(UTC)},
            )
            applied_now.append(migration)
    return applied_now
