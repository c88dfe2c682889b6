"""`brainbot doctor`: check the settings and everything they point at, and say what
is wrong and how to fix it. Exit code 1 when something is wrong.

Checks: the configuration; the database and its `vector` extension and schema
version, and how many notes still wait for vectors of a new embedder; the vault
(git, writable, lock files, a change a crash cut short in any vault, backup remote
and unmerged conflicts); what is read out of shared links, photos and documents
(whether Tesseract is there); each configured platform, through its API (its
contract's probe: Slack's auth.test, Telegram's getMe, ...); the model endpoint
(models list, or a one-token completion), the mode chat runs in (asked as `brainbot run`
asks it: bot.turn.mode) and the embeddings endpoint; the tools
people added (plugins, each vault's .brainbot/tools.yaml, the vaults a
secret is allowed to). Nothing is changed, except that the database schema is
created or migrated, and an embedded database of PostgreSQL 16 carried over, as
`brainbot run` would (the database's checks: app.commands.doctor_database).
Tokens never appear in the output.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO

from adapters.platform import PROBE_TIMEOUT, Finding, Platform
from app import brain_data
from app.commands.doctor_database import database
from app.commands.doctor_sync import sync_findings
from app.platforms import PLATFORMS, Platforms, configured, own, titles
from app.probes import model
from app.settings_check import SettingsInvalid, load_settings
from app.tool_checks import custom_tools, vault_folders
from bot.config import Settings
from bot.logs import redact, secrets_of
from storage import OWNER_VAULT_NAME
from storage.vault import BackupError, VaultBackup, files_cut_short, lock_files, remote_of

# One of doctor's checks: the settings in, the report's lines out.
DoctorCheck = Callable[[Settings], Awaitable[list[Finding]]]


def main(args: argparse.Namespace) -> int:
    """`brainbot doctor`."""
    return asyncio.run(run_doctor(sys.stdout))


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


async def diagnose(settings: Settings, platforms: Platforms = PLATFORMS) -> list[Finding]:
    """Every check, in order (each configured platform's probe after the tools people
    added); a check that crashes is itself reported."""

    async def settings_of(s: Settings) -> list[Finding]:
        return await configuration(s, platforms)

    checks: list[tuple[str, DoctorCheck]] = [
        ("configuration", settings_of),
        ("database", database if brain_data.exists(settings) or settings.database_url else _none),
        *((check.__name__, check) for check in (vault, reading, custom_tools)),
        *((p.name, _probe(p)) for p in configured(settings, platforms)),
        *((check.__name__, check) for check in (mail_check, model)),
    ]
    findings: list[Finding] = []
    for name, check in checks:
        try:
            findings.extend(await check(settings))
        except Exception as exc:
            findings.append(Finding("problem", name, f"the check failed: {exc!r}"))
    return findings


async def mail_check(s: Settings) -> list[Finding]:
    """Email in (app.mail), whose mailbox code (and the engine's parts it files with)
    is imported only when a mailbox is set."""
    if not s.imap_url:
        return []
    from app.mail import mail_check as check_mailbox

    return await check_mailbox(s)


async def _none(s: Settings) -> list[Finding]:
    """No embedded database is made just to check it: the first start makes it."""
    said = f"no brainbot data in {brain_data.where(s)} yet"
    fix = "`brainbot run`, `chat` or `import` makes it; or set BRAINBOT_DATA_DIR to yours"
    return [Finding("note", "database", said, fix)]


def _probe(platform: Platform[Any]) -> DoctorCheck:
    async def probe(s: Settings) -> list[Finding]:
        return await platform.probe(own(platform, s))

    return probe


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


async def configuration(s: Settings, platforms: Platforms = PLATFORMS) -> list[Finding]:
    found: list[Finding] = []  # a bad value never gets here: see app.settings_check
    described = []
    for platform in configured(s, platforms):
        mine = own(platform, s)
        found += platform.problems(mine)
        if (how := platform.describe(mine)) is not None:
            described.append(how)
    model = f"model {s.llm_model}" if s.llm_enabled else "no model (command router)"
    where = ", ".join(described) or f"the console only (no {titles(platforms)} settings)"
    found.insert(0, Finding("ok", "configuration", f"{where}; {model}; embeddings {s.embeddings}"))
    if s.embeddings == "local":
        from storage.index import LOCAL_FALLBACK, local_unavailable

        if (why := local_unavailable()) is not None:
            found.append(Finding("problem", "embeddings", why, LOCAL_FALLBACK))
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
    found = [Finding("ok", "reading", links), _voice(s)]
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


def _voice(s: Settings) -> Finding:
    """How voice notes become words (bot.enrich.hearing), as `brainbot run` chooses."""
    from bot.enrich import choose

    hearing = choose(s.transcribe_setting, s.llm_enabled, s.transcribe_model_dir)
    if hearing.mode != "off":
        return Finding("ok", "voice", f"voice notes are transcribed {hearing.why}")
    said = f"voice notes are kept untranscribed: {hearing.why}"
    if s.transcribe_setting == "off":
        return Finding("ok", "voice", said)
    return Finding(
        "warning",
        "voice",
        said,
        "`make voice` (or `pip install 'brainbot[voice]'` and BRAINBOT_TRANSCRIBE_MODEL_DIR "
        "set to a faster-whisper model folder)",
    )


# -- vault ---------------------------------------------------------------------------


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
    found += [
        _cut_short(root, files) for _, root in vault_folders(s) if (files := files_cut_short(root))
    ]
    if s.git_remote and has_git:
        found.extend(_backup(s))
        found.extend(sync_findings(s))
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
    remote = remote_of(s.git_remote, OWNER_VAULT_NAME, owner=True) or ""
    backup = VaultBackup(s.vault_dir, remote, timeout=PROBE_TIMEOUT * 3)
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
