"""A lock file left in `.git` by a write that was killed does not block the vault."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.storage.vault.vault_support import ANN, make_vault, status


def test_a_stale_index_lock_is_removed_and_the_index_follows_head(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    # What a kill -9 between libgit2's index write and its rename leaves: the lock,
    # and an index that never saw the last commit.
    (root / ".git" / "index.lock").write_bytes(b"")
    vault.create("ideas", "Cut short", author=ANN)
    (root / ".git" / "refs" / "heads" / "main.lock").write_bytes(b"")

    reopened = make_vault(root)
    reopened.create("ideas", "After the restart", author=ANN)

    assert not (root / ".git" / "index.lock").exists()
    assert status(root) == ""
    assert sorted(e.path for e in reopened.list("ideas")) == [
        "ideas/after-the-restart.md",
        "ideas/cut-short.md",
    ]


def test_a_lock_a_running_process_holds_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    make_vault(root)
    lock = root / ".git" / "index.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import sys; f = open({str(lock)!r}, 'w'); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        while not lock.exists():
            assert holder.poll() is None
        make_vault(root)
        assert lock.exists()
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)


def test_a_damaged_git_index_never_makes_a_committed_write_look_failed(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    vault.create("ideas", "Before", author=ANN)
    (root / ".git" / "index").write_bytes(b"DIRC garbage from a full disk")

    written = vault.create("ideas", "After", author=ANN)

    assert vault.head() == written.change.commit
    assert (root / "ideas/after.md").is_file()  # the file stays: HEAD has it
    assert status(root) == ""
    assert vault.changed_since(written.change.commit).changed == ()
    again = vault.create("ideas", "Later", author=ANN)
    assert sorted(e.path for e in vault.list("ideas")) == [
        "ideas/after.md",
        "ideas/before.md",
        "ideas/later.md",
    ]
    assert again.change.paths == ("ideas/later.md",)


def test_an_index_a_kill_left_behind_head_is_no_hand_edit(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    vault.create("ideas", "Old", author=ANN)
    stale = (root / ".git" / "index").read_bytes()
    vault.create("ideas", "New", author=ANN)
    vault.delete("ideas/old.md", author=ANN)
    # What a kill between moving HEAD and writing the index leaves: an index that
    # never saw the last commits, though the files on disk are what HEAD holds.
    (root / ".git" / "index").write_bytes(stale)
    head = vault.head()

    reopened = make_vault(root)

    assert reopened.commit_outside_edits() is None  # no empty "edited outside" commit
    assert reopened.head() == head
    assert status(root) == ""
