"""`brainbot doctor`'s checks of the database: the connection, pgvector and the schema
version (migrated as `brainbot run` would), the embedded server's crashes and the
folders its upgrade kept, and what the database records of the running bot
(deliveries that failed, items skipped, notes waiting for vectors, who may use it)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sqlalchemy import text

from adapters.platform import Finding
from app.platforms import configured, how_to_claim
from bot.config import Settings
from storage import (
    LATEST,
    EmbeddedPostgresMismatch,
    EmbeddedPostgresUnsupportedCpu,
    StorageError,
    applied_versions,
    migrate,
)
from storage.db import (
    NO_VAULT,
    SEMANTIC_SEARCH_FIX,
    Admission,
    Database,
    SkippedItems,
    semantic_search_off,
    server_crashes,
)
from storage.index import embedding_progress


async def database(s: Settings) -> list[Finding]:
    where = "the embedded Postgres" if s.database_url is None else "DATABASE_URL"
    try:
        async with asyncio.timeout(60):
            db = await Database.connect(s.database_url, s.data_dir)
    except (StorageError, TimeoutError) as exc:
        fix = (
            "check DATABASE_URL; the server needs the pgvector extension (the "
            "pgvector/pgvector image has it)"
            if s.database_url
            else exc.fix
            if isinstance(exc, EmbeddedPostgresMismatch | EmbeddedPostgresUnsupportedCpu)
            else f"check that {s.data_dir} is writable and not on a network share"
        )
        reason = str(exc).splitlines()[0] if str(exc) else "no answer within 60 s"
        return [Finding("problem", "database", f"{where}: {reason}", fix), *crashes(s)]
    try:
        async with db.engine.connect() as conn:
            version = await conn.scalar(text("SHOW server_version"))
            vector = await conn.scalar(
                text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            )
        before = await applied_versions(db.engine)
        await migrate(db.engine)
        admission = await _admission(s, Admission(db.engine))
        admission += await failed_sends(db)
        admission += await skipped_this_week(db)
        admission += await embedding(s, db) if db.vectors else semantic_search_off_here(s, db)
    finally:
        await db.close()
    schema = f"schema version {max(before, default=0)} of {LATEST}"
    if len(before) < LATEST:
        schema += " (brainbot run migrates it at start; done now)"
    pgvector = f"vector {vector}" if db.vectors else "no pgvector (this CPU cannot run it)"
    ok = Finding("ok", "database", f"{where}: Postgres {version}, {pgvector}, {schema}")
    return [ok, *crashes(s), *kept_old_folders(s), *admission]


def semantic_search_off_here(s: Settings, db: Database) -> list[Finding]:
    """The embedded server on a CPU its pgvector cannot run on: keyword search only, and
    a warning when embeddings are asked for (they are not used)."""
    detail = semantic_search_off(db.cpu_lacks)
    if s.embeddings == "none":
        return [Finding("note", "search", detail, SEMANTIC_SEARCH_FIX)]
    unused = f"; BRAINBOT_EMBEDDINGS={s.embeddings} is not used"
    return [Finding("warning", "search", detail + unused, SEMANTIC_SEARCH_FIX)]


def crashes(s: Settings) -> list[Finding]:
    """The embedded server's processes killed by a signal since it last started: SIGILL
    is an instruction this CPU lacks (a build the start's check does not know)."""
    if s.database_url is not None:
        return []
    pgdata = s.data_dir / "pg"
    found = server_crashes(pgdata)
    if not found:
        return []
    if any("signal 4:" in line for line in found):
        return [
            Finding(
                "problem",
                "database",
                f"the embedded Postgres crashed {len(found)} time(s) since it started, on an "
                f"instruction this CPU lacks (SIGILL): {found[-1].strip()}",
                "run brainbot on a newer CPU, or set DATABASE_URL to a Postgres with "
                "pgvector built for this one (a distribution's package or the "
                "pgvector/pgvector image)",
            )
        ]
    return [
        Finding(
            "warning",
            "database",
            f"the embedded Postgres crashed {len(found)} time(s) since it started: "
            f"{found[-1].strip()}",
            f"see {pgdata / 'log'}",
        )
    ]


def kept_old_folders(s: Settings) -> list[Finding]:
    """The folders an upgrade of the embedded Postgres kept (storage.db.pg_upgrade)."""
    if s.database_url is not None:
        return []
    return [
        Finding(
            "note",
            "database",
            f"{kept} is the embedded database as it was before its upgrade",
            f"delete it (and {s.data_dir}/pg*-to-pg*.dump) once brainbot runs well",
        )
        for kept in sorted(s.data_dir.glob("pg-*-before-upgrade"))
    ]


_FAILED_SENDS = text(
    "SELECT what, due_at AS at, detail FROM send_ledger"
    " WHERE status = 'failed' AND due_at > now() - interval '7 days' ORDER BY due_at DESC"
)


async def failed_sends(db: Database) -> list[Finding]:
    """Digests and reminders that failed for good (after their retries) this week."""
    async with db.engine.connect() as conn:
        failed = (await conn.execute(_FAILED_SENDS)).all()
    if not failed:
        return []
    last = failed[0]
    return [
        Finding(
            "warning",
            "deliveries",
            f"{len(failed)} digest(s) or reminder(s) could not be sent in the last 7 days; "
            f"the last, a {last.what} due {last.at:%Y-%m-%d %H:%M} UTC: {last.detail}",
            "check the platform's token and that the person's chat still exists; "
            "`brainbot digest --send` sends a digest by hand",
        )
    ]


async def embedding(s: Settings, db: Database) -> list[Finding]:
    """Notes still waiting for vectors of a new embedder (a running brainbot embeds
    them in the background; search finds them by keyword meanwhile)."""
    if s.embeddings == "none":
        return []
    progress = await embedding_progress(db.engine)
    if progress is None:
        return []
    return [
        Finding(
            "note",
            "embeddings",
            f"{progress}; until then the others are found by keyword search",
            "`brainbot run` goes on with it in the background (it resumes after a restart)",
        )
    ]


async def skipped_this_week(db: Database) -> list[Finding]:
    """Bad notes, files and jobs skipped this week so that everything else went on."""
    skipped = await SkippedItems(db.engine).this_week(datetime.now(UTC))
    shown = skipped[:10]
    found = [
        Finding(
            "warning",
            f"skipped ({item.where})",
            f"{item.path}{'' if item.vault_id == NO_VAULT else f' in vault {item.vault_id}'}: "
            f"{item.reason} ({item.times}x, last {item.last_at:%Y-%m-%d %H:%M} UTC)",
            "fix or remove it by hand; it is read again at the next sync",
        )
        for item in shown
    ]
    if len(skipped) > len(shown):
        found.append(
            Finding("warning", "skipped", f"and {len(skipped) - len(shown)} more this week")
        )
    return found


async def _admission(s: Settings, admission: Admission) -> list[Finding]:
    """Who may use the bot when BRAINBOT_ALLOWED_USERS is empty: nobody until claimed."""
    if s.allowed_users or not configured(s):
        return []
    code = await admission.claim_code(datetime.now(UTC))
    if code is None:
        return [Finding("ok", "access", "claimed by its owner; others need /link or the setting")]
    return [
        Finding(
            "warning",
            "access",
            "nobody may use the bot yet (BRAINBOT_ALLOWED_USERS is empty)",
            f"{how_to_claim(code)} to become its owner, or list people in BRAINBOT_ALLOWED_USERS",
        )
    ]
