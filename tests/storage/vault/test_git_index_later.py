"""A write whose git index is written after it (storage.writer writes it while the
database indexes): the index is only a cache of `git status`, so a process that dies in
between leaves nothing for a hand edit and nothing staged once the vault is opened again."""

from __future__ import annotations

from pathlib import Path

from storage.entry import BOT_AUTHOR
from tests.storage.vault.vault_support import git, make_vault


def test_a_write_left_for_the_git_index_is_kept_and_the_index_follows(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    with vault.index_later():
        written = vault.create("ideas", "Buy oat milk", "Buy oat milk on Thursday")
    path = written.entry.path
    assert git(root, "status", "--porcelain") != ""  # the index lags: staged as removed
    assert vault.follow_index()
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "log", "--format=%s", "--", path).splitlines() == [f"create {path}"]


def test_a_process_that_died_before_the_git_index_was_written_left_no_hand_edit(
    tmp_path: Path,
) -> None:
    root = tmp_path / "vault"
    vault = make_vault(root)
    with vault.index_later():
        written = vault.create("ideas", "Buy oat milk", "Buy oat milk on Thursday")
        vault.update(written.entry.path, body="Buy oat milk on Friday", author=BOT_AUTHOR)
    # The process dies here: `follow_index` never runs.
    reopened = make_vault(root)
    assert reopened.commit_outside_edits() is None  # the bot's writes, not the person's
    assert reopened.changed_since(reopened.head()).changed == ()
    assert git(root, "status", "--porcelain") == ""
    subjects = git(root, "log", "--format=%s %an").splitlines()
    assert subjects[:2] == [
        f"update {written.entry.path} brainbot",
        f"create {written.entry.path} brainbot",
    ]
    assert "Friday" in reopened.read(written.entry.path).body
