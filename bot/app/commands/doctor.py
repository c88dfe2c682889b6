"""`brainbot doctor`: check the settings and everything they point at, and say what
is wrong and how to fix it. Exit code 1 when something is wrong.

Checks: the configuration; the database and its `vector` extension and schema
version, and how many notes still wait for vectors of a new embedder; the vault
(git, writable, lock files, a change a crash cut short in any vault, backup remote
and unmerged conflicts); what is read out of shared links, photos and documents
(whether Tesseract is there); each configured platform's token, through its API
(Slack auth.test and apps.connections.open, Telegram getMe and getWebhookInfo); the
model endpoint (models list, or a one-token completion) and the embeddings endpoint;
the tools people added (plugins, each vault's .brainbot/tools.yaml, the vaults a
secret is allowed to). Nothing is changed, except that the database schema is
created or migrated, and an embedded database of PostgreSQL 16 carried over, as
`brainbot run` would. Tokens never appear in the output.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import text

from bot.app.mail import mail_check
from bot.app.probes import TIMEOUT, Finding, model, slack, telegram
from bot.app.settings_check import SettingsInvalid, load_settings
from bot.app.tool_checks import custom_tools, vault_folders
from bot.config import Settings
from bot.logs import redact, secrets_of
from storage.db.admission import Admission
from storage.db.embedded_pg import server_crashes
from storage.db.engine import Database
from storage.db.migrations import LATEST, applied_versions, migrate
from storage.db.skipped import NO_VAULT, SkippedItems
from storage.errors import EmbeddedPostgresMismatch, EmbeddedPostgresUnsupportedCpu, StorageError
from storage.index.backfill import embedding_progress
from storage.vault.backup import BackupError, VaultBackup
from storage.vault.gitlocks import lock_files
from storage.vault.journal import pending


def register(subparsers: Any) -> None:
    doctor = subparsers.add_parser(
        "doctor", help="check the settings, database, vault, platforms and model; say what to fix"
    )
    doctor.set_defaults(func=lambda args: asyncio.run(run_doctor(sys.stdout)))


async def run_doctor(out: TextIO) -> int:
    try:
        settings = load_settings()
    except SettingsInvalid as exc:
        findings = [Finding("problem", "configuration", line) for line in exc.lines]
        out.write(render(findings, []))
        return 1
    findings = await diagnose(settings)
    out.write(render(findings, secrets_of(settings)))
    return 1 if any(f.level == "problem" for f in findings) else 0


async def diagnose(settings: Settings) -> list[Finding]:
    """Every check, in order; a check that crashes is itself reported."""
    findings: list[Finding] = []
    checks = (configuration, database, vault, reading, custom_tools, slack, telegram)
    for check in (*checks, mail_check, model):
        try:
            findings.extend(await check(settings))
        except Exception as exc:
            findings.append(Finding("problem", check.__name__, f"the check failed: {exc!r}"))
    return findings


def render(findings: list[Finding], secrets: list[str]) -> str:
    labels = {"ok": "ok", "note": "note", "warning": "warning", "problem": "PROBLEM"}
    lines = []
    for f in findings:
        lines.append(f"{labels[f.level]:<8} {f.topic}: {f.detail}")
        if f.fix:
            lines.append(f"{'':<8} fix: {f.fix}")
    problems = sum(f.level == "problem" for f in findings)
    lines.append(f"\n{problems} problem(s)." if problems else "\nNo problems found.")
    return redact("\n".join(lines) + "\n", secrets)


# -- configuration -------------------------------------------------------------------


async def configuration(s: Settings) -> list[Finding]:
    found: list[Finding] = []  # a bad value never gets here: see bot.app.settings_check
    platforms = []
    if s.slack_bot_token:
        if s.slack_app_token or s.slack_signing_secret:
            platforms.append(
                "Slack (" + ("Socket Mode" if s.slack_app_token else "HTTP mode") + ")"
            )
        else:
            found.append(
                Finding(
                    "problem",
                    "configuration",
                    "SLACK_BOT_TOKEN is set without SLACK_APP_TOKEN or SLACK_SIGNING_SECRET",
                    "set SLACK_APP_TOKEN (xapp-…, Socket Mode) or SLACK_SIGNING_SECRET "
                    "(HTTP mode, events at /slack/events)",
                )
            )
    if s.telegram_bot_token:
        if s.telegram_webhook_url and not s.telegram_webhook_secret:
            found.append(
                Finding(
                    "problem",
                    "configuration",
                    "TELEGRAM_WEBHOOK_URL is set without TELEGRAM_WEBHOOK_SECRET",
                    "set TELEGRAM_WEBHOOK_SECRET to a random string of A-Z, a-z, 0-9, _ and -",
                )
            )
        platforms.append("Telegram (" + ("webhook" if s.telegram_webhook_url else "polling") + ")")
    model = f"model {s.llm_model}" if s.llm_enabled else "no model (command router)"
    where = ", ".join(platforms) or "the console only (no Slack or Telegram settings)"
    found.insert(0, Finding("ok", "configuration", f"{where}; {model}; embeddings {s.embeddings}"))
    return found


async def reading(s: Settings) -> list[Finding]:
    """What is read out of what people share (bot.enrich): links, photos, documents."""
    from bot.readers.images import OcrUnavailable, engine

    links = (
        "links: their pages are read"
        + ("" if s.fetch_allow_private else " (private addresses refused)")
        + (f"; trusted: {', '.join(s.fetch_trusted_hosts)}" if s.fetch_trusted_hosts else "")
        if s.fetch_links
        else "links are kept as sent (BRAINBOT_FETCH=false)"
    )
    found = [Finding("ok", "reading", links)]
    if not s.read_files:
        found.append(Finding("ok", "reading", "photos and documents are kept as sent"))
        return found
    try:
        ocr = await asyncio.to_thread(engine)
    except OcrUnavailable as exc:
        found.append(
            Finding(
                "warning",
                "reading",
                f"photos are kept, but their text is not read: {exc.reason}",
                "install Tesseract (`make ocr` as root on Debian or Ubuntu), or set "
                "BRAINBOT_READ_FILES=false",
            )
        )
    else:
        described = f"; described by {s.vision_model}" if s.vision_model else ""
        found.append(
            Finding(
                "ok", "reading", f"text in photos read by Tesseract ({ocr.languages}){described}"
            )
        )
    return found


# -- database and vault --------------------------------------------------------------


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
        admission += await embedding(s, db)
    finally:
        await db.close()
    schema = f"schema version {max(before, default=0)} of {LATEST}"
    if len(before) < LATEST:
        schema += " (brainbot run migrates it at start; done now)"
    ok = Finding("ok", "database", f"{where}: Postgres {version}, vector {vector}, {schema}")
    return [ok, *crashes(s), *kept_old_folders(s), *admission]


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
                EmbeddedPostgresUnsupportedCpu.fix,
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
    if s.allowed_users or not (s.slack_bot_token or s.telegram_bot_token):
        return []
    code = await admission.claim_code(datetime.now(UTC))
    if code is None:
        return [Finding("ok", "access", "claimed by its owner; others need /link or the setting")]
    return [
        Finding(
            "warning",
            "access",
            "nobody may use the bot yet (BRAINBOT_ALLOWED_USERS is empty)",
            f"send `/start {code}` to the bot (in Slack: `claim {code}` in a DM) to become "
            "its owner, or list people in BRAINBOT_ALLOWED_USERS",
        )
    ]


async def vault(s: Settings) -> list[Finding]:
    return await asyncio.to_thread(_vault, s)


def _vault(s: Settings) -> list[Finding]:
    found: list[Finding] = []
    root = s.vault_dir
    has_git = shutil.which("git") is not None
    if not has_git:
        level = "problem" if s.git_remote else "warning"
        found.append(
            Finding(
                level, "vault", "the git command is not installed", "install git (apt install git)"
            )
        )
    existing = root if root.exists() else next(p for p in root.parents if p.exists())
    if not os.access(existing, os.W_OK):
        found.append(
            Finding(
                "problem",
                "vault",
                f"{existing} is not writable by this user",
                "chown the folder to this user, or set BRAINBOT_VAULT_DIR",
            )
        )
    elif not root.exists():
        found.append(Finding("ok", "vault", f"{root} will be created at the first start"))
    elif not (root / ".git").is_dir():
        found.append(
            Finding("note", "vault", f"{root} is not a git repository yet; it becomes one at start")
        )
    else:
        found.append(Finding("ok", "vault", f"{root} is a writable git repository"))
        for lock in lock_files(root / ".git"):
            found.append(
                Finding(
                    "warning",
                    "vault",
                    f"{lock.name} is left in .git",
                    "if no git command is running, brainbot removes it at the next start",
                )
            )
    found += [_cut_short(root, files) for _, root in vault_folders(s) if (files := pending(root))]
    if s.git_remote and has_git:
        found.extend(_backup(s))
    return found


def _cut_short(root: Path, files: int) -> Finding:
    """A change of the vault that a kill (or a failure) cut short: its journal waits."""
    return Finding(
        "warning",
        "vault",
        f"{root}: a change of {files} file(s) was cut short (brainbot stopped part-way); "
        "its files may be half changed until brainbot opens the vault again",
        "start brainbot (`brainbot run`): it finishes the change or puts the files back",
    )


def _backup(s: Settings) -> list[Finding]:
    backup = VaultBackup(s.vault_dir, s.git_remote or "", timeout=TIMEOUT * 3)
    try:
        backup.reachable()
    except BackupError as exc:
        return [
            Finding(
                "problem",
                "backup",
                f"cannot reach {backup.shown}: {exc.detail}",
                "check BRAINBOT_GIT_REMOTE and its credentials (a deploy key or a token)",
            )
        ]
    found = [Finding("ok", "backup", f"{backup.shown} is reachable")]
    if (s.vault_dir / ".git").is_dir():
        # With a conflict waiting, the backup is behind because of it: say that alone.
        behind = None if backup.conflicts() else backup.backed_up()
        if behind is not None:
            found.append(
                Finding(
                    "problem",
                    "backup",
                    behind,
                    f"make {backup.shown} accept pushes to the vault's branch (a protected "
                    "branch, a hook or missing write access refuse them); brainbot retries",
                )
            )
        for branch in backup.conflicts():
            found.append(
                Finding(
                    "problem",
                    "backup",
                    f"a conflict with the remote waits on branch {branch}",
                    f"git -C {s.vault_dir} merge {branch}, resolve, commit; then restart",
                )
            )
    return found
