"""A commit's trees are built from the last commit's (GitRepo keeps the tree builders
it wrote): what HEAD holds is always HEAD's tree with the change made, whatever was
prepared and dropped before, or committed by another writer in between."""

from __future__ import annotations

from pathlib import Path

from storage.entry import BOT_AUTHOR
from storage.vault.gitrepo import GitRepo
from tests.storage.vault.vault_support import git


def _files(root: Path) -> list[str]:
    return git(root, "ls-tree", "-r", "--name-only", "HEAD").split()


def test_a_commit_prepared_and_dropped_leaves_nothing_in_the_next(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    repo = GitRepo(root)
    repo.commit({"ideas/a.md": repo.blob(b"a\n")}, "a", BOT_AUTHOR)
    repo.prepare({"ideas/b.md": repo.blob(b"b\n"), "people/x.md": None}, "b", BOT_AUTHOR)
    repo.commit({"ideas/c.md": repo.blob(b"c\n")}, "c", BOT_AUTHOR)
    assert _files(root) == ["ideas/a.md", "ideas/c.md"]


def test_a_commit_after_another_writers_keeps_both(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    ours, theirs = GitRepo(root), GitRepo(root)
    ours.commit({"ideas/a.md": ours.blob(b"a\n")}, "a", BOT_AUTHOR)
    theirs.commit({"ideas/b.md": theirs.blob(b"b\n")}, "b", BOT_AUTHOR)
    ours.commit({"ideas/c.md": ours.blob(b"c\n"), "ideas/a.md": None}, "c", BOT_AUTHOR)
    ours.commit({"ideas/d.md": ours.blob(b"d\n")}, "d", BOT_AUTHOR)
    assert _files(root) == ["ideas/b.md", "ideas/c.md", "ideas/d.md"]
    assert git(root, "show", "HEAD:ideas/c.md") == "c\n"
    git(root, "fsck", "--strict", "--no-dangling")
