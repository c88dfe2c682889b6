"""`brainbot doctor` against the fake Slack, Telegram and OpenAI servers: a healthy
set-up passes; each broken part is named with its fix, and no token is printed."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from app.commands.doctor import vault as vault_check
from bot.config import Settings
from storage.db.skipped import SkippedItems
from storage.migrations import migrate
from storage.vault.backup import VaultBackup
from tests.conftest import on_database
from tests.fakes.slack_api import BOT_TOKEN
from tests.in_process import brainbot_in_thread
from tests.production.conftest import Fakes
from tests.production.gitremote import bare_remote, commit_file, other_machine
from tests.production.process import command
from tests.storage.vault.vault_support import ANN, make_vault

pytestmark = pytest.mark.slow  # the fakes, and a brainbot process


async def doctor(env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """`brainbot doctor`, run in this process: its exit code, its report and log."""
    done = await brainbot_in_thread(["doctor"], env, cwd, stderr_to_stdout=True)
    return done.returncode, done.stdout


def _versions(url: str) -> tuple[str, str]:
    """The server's Postgres and pgvector versions, as it tells them (any server)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT current_setting('server_version'),"
            " (SELECT extversion FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
    assert row is not None
    return str(row[0]), str(row[1])


async def test_a_healthy_setup_passes(tmp_path: Path, database_url: str, fakes: Fakes) -> None:
    env = fakes.env(
        tmp_path,
        database_url,
        slack="socket",
        BRAINBOT_EMBEDDINGS="openai",
        BRAINBOT_ALLOWED_USERS="slack:U0ALICE",
    )
    code, out = await doctor(env, tmp_path)
    assert code == 0, out
    assert "PROBLEM" not in out and "No problems found." in out
    postgres, vector = _versions(database_url)
    for line in (
        "ok       configuration: Slack (Socket Mode), Telegram (polling);",
        f"ok       database: DATABASE_URL: Postgres {postgres}, vector {vector},",
        "ok       slack: signed in as brainbot in Acme",
        "ok       slack: Socket Mode is allowed for SLACK_APP_TOKEN",
        "ok       telegram: signed in as @brainbot_test_bot",
        "ok       embeddings: text-embedding-3-small answers",
    ):
        assert line in out


async def test_each_broken_part_is_named_with_its_fix(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    fakes.openai.down = True
    wrong_slack = "xoxb-0000000000-wrongtokenvalue"
    wrong_telegram = "999999:WRONG-token-of-a-bot-that-does-not-exist"
    env = fakes.env(
        tmp_path,
        on_database(database_url, "missing_" + (make_url(database_url).database or "")),
        slack="http",
        SLACK_BOT_TOKEN=wrong_slack,
        TELEGRAM_BOT_TOKEN=wrong_telegram,
        BRAINBOT_GIT_REMOTE=str(tmp_path / "no-such-remote.git"),
    )
    code, out = await doctor(env, tmp_path)
    assert code == 1, out
    for expected in (
        "PROBLEM  database: DATABASE_URL: cannot connect",
        "PROBLEM  slack: SLACK_BOT_TOKEN was refused (invalid_auth)",
        "PROBLEM  telegram: TELEGRAM_BOT_TOKEN was refused (401",
        "ask @BotFather",
        "PROBLEM  model:",
        "answered 503",
        "PROBLEM  backup: cannot reach",
    ):
        assert expected in out
    assert out.count("fix: ") >= 5
    for secret in (wrong_slack, wrong_telegram, BOT_TOKEN, env["OPENAI_API_KEY"]):
        assert secret not in out


async def test_an_unmerged_backup_conflict_is_a_problem_until_merged(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "data" / "vault")
    written = vault.create("ideas", "Tea", body="green tea", author=ANN)
    backup = VaultBackup(vault.root, str(remote))
    backup.push()
    commit_file(other_machine(remote, tmp_path / "laptop"), "ideas/tea.md", "black tea\n")
    vault.update(written.change.paths[0], body="oolong tea", author=ANN)
    branch = backup.restore().branch
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, BRAINBOT_DATA_DIR=str(tmp_path / "data"), BRAINBOT_GIT_REMOTE=str(remote)
    )

    findings = await vault_check(settings)

    problem = next(f for f in findings if f.level == "problem")
    assert problem.detail == f"a conflict with the remote waits on branch {branch}"
    assert problem.fix.startswith(f"git -C {vault.root} merge {branch}")


async def test_an_install_nobody_claimed_shows_its_claim_code(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, BRAINBOT_ALLOWED_USERS="")
    _, out = await doctor(env, tmp_path)
    assert "warning  access: nobody may use the bot yet" in out
    code = out.split("send `/start ", 1)[1].split("`", 1)[0]
    assert len(code.replace("-", "")) == 12
    _, again = await doctor(env, tmp_path)
    assert f"/start {code}`" in again  # the same code until it is claimed


async def test_what_was_skipped_this_week_is_listed_with_its_reason(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    engine = create_async_engine(database_url)
    try:
        await migrate(engine)
        skipped = SkippedItems(engine)
        now = datetime.now(UTC)
        for _ in range(2):
            await skipped.record("sync", "ideas/odd.md", "invalid date in 'updated'", now, 1)
        await skipped.record("reminders", "tasks/old.md", "gone", now - timedelta(days=8), 1)
    finally:
        await engine.dispose()
    env = fakes.env(tmp_path, database_url, BRAINBOT_ALLOWED_USERS="slack:U0ALICE")
    _, out = await doctor(env, tmp_path)
    assert (
        "warning  skipped (sync): ideas/odd.md in vault 1: invalid date in 'updated' (2x, last "
    ) in out
    assert "tasks/old.md" not in out  # older than a week


async def test_what_is_read_out_of_shared_things_is_said_and_a_missing_ocr_is_a_warning(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, BRAINBOT_VISION_MODEL="gpt-4o-mini")
    # Real processes: each finds Tesseract (or not) on its own PATH once.
    if shutil.which("tesseract") is not None:
        _, out = await command(env, tmp_path, "doctor")
        assert "ok       reading: links: their pages are read (private addresses refused)" in out
        assert "ok       reading: text in photos read by Tesseract (eng+" in out
        assert "; described by gpt-4o-mini" in out
    # A machine without Tesseract: photos are kept, and the doctor says what to install.
    bare = tmp_path / "bin"
    bare.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bare / "git").symlink_to(git)
    # ...and one told to hear voice notes locally from a folder with no model in it.
    empty = tmp_path / "no-model"
    empty.mkdir()
    voice = {"BRAINBOT_TRANSCRIBE": "local", "BRAINBOT_TRANSCRIBE_MODEL_DIR": str(empty)}
    bare_env = {**env, "PATH": str(bare), "BRAINBOT_FETCH": "false", **voice}
    _, out = await command(bare_env, tmp_path, "doctor")
    assert "warning  voice: voice notes are kept untranscribed: local transcription is not" in out
    assert "fix: `make voice`" in out
    assert "ok       reading: links are kept as sent (BRAINBOT_FETCH=false)" in out
    assert "warning  reading: photos are kept, but their text is not read: Tesseract is" in out
    assert "fix: install Tesseract (`make ocr`" in out
