"""Backups to a git remote: pushed after changes (batched, retried, never in the way
of a capture), pulled at start, and a conflict kept on a branch, never lost."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from storage.vault.backup import BackupPusher, VaultBackup
from tests.bot.helpers import notes
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.gitremote import (
    HAND,
    bare_remote,
    commit_file,
    empty_laptop,
    other_machine,
    remote_head,
)
from tests.production.process import Brainbot
from tests.storage.vault.vault_support import ANN, git, make_vault

pytestmark = pytest.mark.slow  # starts brainbot processes


async def eventually(check: Callable[[], bool], within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


async def test_changes_are_pushed_in_batches(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "vault")
    pushes: list[bool] = []
    pusher = BackupPusher(
        VaultBackup(vault.root, str(remote)), debounce=1.0, poll=0.05, on_push=pushes.append
    )
    await pusher.start()
    try:
        for n in range(5):
            vault.create("ideas", f"Thought {n}", author=ANN)
        await eventually(lambda: bool(pushes))
        assert pushes == [True] and remote_head(remote) == vault.head()
    finally:
        await pusher.stop()


async def test_a_failing_remote_never_blocks_a_capture_and_is_retried(tmp_path: Path) -> None:
    remote = tmp_path / "not-there-yet.git"
    vault = make_vault(tmp_path / "vault")
    pushes: list[bool] = []
    pusher = BackupPusher(
        VaultBackup(vault.root, str(remote)), debounce=0.05, poll=0.02, on_push=pushes.append
    )
    await pusher.start()
    try:
        vault.create("ideas", "First", author=ANN)
        await eventually(lambda: pushes.count(False) >= 2)
        started = time.monotonic()
        vault.create("ideas", "Second", author=ANN)
        assert time.monotonic() - started < 1.0
        assert pusher.last_error is not None and "not-there-yet" in pusher.last_error

        bare_remote(remote)  # the remote comes back
        await eventually(lambda: pushes[-1] is True)
        assert remote_head(remote) == vault.head() and pusher.failures == 0
    finally:
        await pusher.stop()


def test_start_pulls_what_another_machine_pushed(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "vault")
    VaultBackup(vault.root, str(remote)).push()
    laptop = other_machine(remote, tmp_path / "laptop")
    commit_file(laptop, "ideas/from-the-laptop.md", "---\ntitle: From the laptop\n---\nhi\n")

    result = VaultBackup(vault.root, str(remote)).restore()

    assert result.outcome == "fast-forward"
    assert (vault.root / "ideas" / "from-the-laptop.md").read_text().endswith("hi\n")
    assert make_vault(vault.root).exists("ideas/from-the-laptop.md")


def test_both_sides_changed_different_notes_merge(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "vault")
    backup = VaultBackup(vault.root, str(remote))
    backup.push()
    laptop = other_machine(remote, tmp_path / "laptop")
    commit_file(laptop, "ideas/laptop.md", "from the laptop\n")
    vault.create("ideas", "From the bot", author=ANN)

    assert backup.restore().outcome == "merged"
    backup.push()

    assert (vault.root / "ideas" / "laptop.md").exists()
    assert (vault.root / "ideas" / "from-the-bot.md").exists()
    assert remote_head(remote) == backup.head()


def test_a_conflict_keeps_both_sides_and_is_reported(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "vault")
    written = vault.create("ideas", "Tea", body="green tea", author=ANN)
    backup = VaultBackup(vault.root, str(remote))
    backup.push()
    laptop = other_machine(remote, tmp_path / "laptop")
    commit_file(laptop, "ideas/tea.md", "black tea, edited on the laptop\n")
    vault.update(written.entry.path if written.entry else "", body="oolong tea", author=ANN)
    ours = (vault.root / "ideas" / "tea.md").read_text()

    result = backup.restore()

    assert result.outcome == "conflict"
    assert (vault.root / "ideas" / "tea.md").read_text() == ours  # the vault is untouched
    assert git(vault.root, "status", "--porcelain") == ""
    assert result.branch is not None and backup.conflicts() == [result.branch]
    assert git(vault.root, "show", f"{result.branch}:ideas/tea.md") == (
        "black tea, edited on the laptop\n"
    )
    # The remote's branch stays as the laptop left it; the vault goes beside it.
    laptop_head = remote_head(remote)
    assert backup.push() == "brainbot/unmerged-main"
    assert remote_head(remote) == laptop_head
    assert remote_head(remote, "brainbot/unmerged-main") == backup.head()

    # The same conflict at the next start does not make another branch.
    assert backup.restore().branch == result.branch
    assert len(git(vault.root, "branch", "--list", "brainbot/*").split()) == 1

    # Merged by hand: nothing to report any more, and main is pushed again.
    subprocess.run(
        ["git", "-C", str(vault.root), *HAND, "merge", "-q", result.branch],
        capture_output=True,
        check=False,
    )
    (vault.root / "ideas" / "tea.md").write_text("oolong and black tea\n")
    git(vault.root, "add", "ideas/tea.md")
    git(vault.root, *HAND, "commit", "-qm", "merge the laptop's tea")
    assert backup.conflicts() == []
    assert backup.push() == "main"


async def test_brainbot_run_pulls_at_start_and_pushes_its_captures(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    laptop = empty_laptop(remote, tmp_path / "laptop")
    commit_file(
        laptop, "ideas/written-on-the-laptop.md", "---\ntitle: Written on the laptop\n---\n"
    )
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_GIT_REMOTE=str(remote))

    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        vault = tmp_path / "data" / "vault"
        assert "ideas/written-on-the-laptop.md" in notes(vault)
        fakes.telegram.queue_update(Updates().message("Call the plumber"))
        await fakes.telegram.wait_for("sendMessage", within=20)
    finally:
        assert await bot.stop() == 0, bot.log()

    pushed = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert {"ideas/written-on-the-laptop.md", "ideas/call-the-plumber.md"} <= set(pushed)


async def test_a_push_the_remote_refuses_is_a_failure_and_doctor_says_so(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'main is protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    vault = make_vault(tmp_path / "vault")
    backup = VaultBackup(vault.root, str(remote))
    pushes: list[bool] = []
    pusher = BackupPusher(backup, debounce=0.05, poll=0.02, on_push=pushes.append)
    await pusher.start()
    try:
        vault.create("ideas", "First", author=ANN)
        await eventually(lambda: pushes.count(False) >= 1)
    finally:
        await pusher.stop(push_within=5)
    assert True not in pushes  # not taken for "the remote moved on"
    assert remote_head(remote) is None
    assert remote_head(remote, "brainbot/unmerged-main") is None
    assert pusher.last_error is not None and "pre-receive hook declined" in pusher.last_error
    behind = backup.backed_up()
    assert behind is not None and "pre-receive hook declined" in behind

    hook.unlink()  # the remote accepts pushes again
    assert backup.push() == "main"
    backup.record_push(None)
    assert backup.backed_up() is None
