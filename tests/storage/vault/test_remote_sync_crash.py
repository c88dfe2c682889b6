"""A sync round killed (kill -9) at any point of its listing, fetch, merge or push
leaves the vault equal to a commit: its old one, or the merge whole. The next round
then finishes the work, and no line either side wrote is lost. The round runs in a
child process (tests/storage/vault/sync_crash_child.py), forked (tests/storage/vault/forked.py)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.vault.journal import JOURNAL_NAME
from storage.vault.remote_sync import RemoteSync
from tests.storage.vault.forked import Children
from tests.storage.vault.sync_support import Device, bare_remote, run_git
from tests.storage.vault.vault_support import ANN, make_vault

NOTES = 40


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault and its remote that both moved: the laptop edited the first half of the
    notes, renamed one, deleted one, added one and changed the shared note's line; the
    bot edited the second half and the same line of the shared note."""
    base = tmp_path_factory.mktemp("sync-template")
    remote = bare_remote(base / "remote.git")
    vault = make_vault(base / "vault")
    for number in range(NOTES):
        vault.create("ideas", f"Note {number}", f"first line {number}\nlast line", author=ANN)
    vault.create("projects", "Shared", "the shared line", author=ANN)
    assert RemoteSync(vault, str(remote)).run().outcome == "empty-remote"
    laptop = Device(remote, base / "laptop")
    for number in range(NOTES // 2):
        path = f"ideas/note-{number}.md"
        laptop.write(path, laptop.read(path).replace("last line", f"laptop line {number}"))
    run_git(laptop.root, "mv", f"ideas/note-{NOTES - 1}.md", "projects/Moved by laptop.md")
    run_git(laptop.root, "rm", "--quiet", f"ideas/note-{NOTES // 2}.md")
    laptop.write("inbox/From laptop.md", "written on the train\n")
    laptop.write("projects/shared.md", laptop.read("projects/shared.md").replace("shared", "LAP"))
    laptop.commit()
    laptop.push()
    for number in range(NOTES // 2 + 1, NOTES - 1):
        vault.update(f"ideas/note-{number}.md", body=f"bot line {number}\nlast line", author=ANN)
    vault.update("projects/shared.md", body="the BOT line", author=ANN)
    shutil.rmtree(laptop.root)
    return base


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Children]:
    started = Children("tests.storage.vault.sync_crash_child", tmp_path_factory.mktemp("out"))
    try:
        yield started
    finally:
        started.close()


def _child(children: Children, base: Path, at: int) -> subprocess.CompletedProcess[str]:
    return children.run(str(base / "vault"), str(base / "remote.git"), str(at))


def _equal_to_a_commit(root: Path, before: str) -> str:
    """Reopen the vault as `brainbot run` does: it is its old commit or the merge,
    with nothing half done; which of the two."""
    vault = make_vault(root)
    assert vault.commit_outside_edits() is None  # no half-done merge is a "hand edit"
    assert run_git(root, "status", "--porcelain").stdout == ""
    notes_temp = [p for p in root.rglob("*.bbtmp") if ".git" not in p.relative_to(root).parts]
    assert notes_temp == []
    assert not (root / ".git" / JOURNAL_NAME).exists()
    if vault.head() == before:
        assert "bot line 21" in (root / "ideas/note-21.md").read_text()
        assert not (root / "inbox/From laptop.md").exists()
        return "old"
    parents = run_git(root, "log", "-1", "--format=%P").stdout.split()
    assert parents[0] == before and len(parents) == 2
    return "merge"


def _nothing_lost(root: Path) -> None:
    vault = make_vault(root)
    for number in range(NOTES // 2):
        assert f"laptop line {number}" in vault.read(f"ideas/note-{number}.md").body
    for number in range(NOTES // 2 + 1, NOTES - 1):
        assert f"bot line {number}" in vault.read(f"ideas/note-{number}.md").body
    assert "last line" in vault.read("projects/Moved by laptop.md").body
    assert not (root / f"ideas/note-{NOTES // 2}.md").exists()
    assert vault.read("inbox/From laptop.md").body == "written on the train"
    assert vault.read("projects/shared.md").body == "the BOT line"
    copies = [p.name for p in (root / "projects").glob("shared (conflict *).md")]
    assert len(copies) == 1 and "the LAP line" in (root / "projects" / copies[0]).read_text()
    remote_head = run_git(root.parent / "remote.git", "rev-parse", "main").stdout.strip()
    assert remote_head == vault.head()


@pytest.mark.slow(seconds=8)
def test_a_sync_killed_at_any_point_leaves_the_vault_equal_to_a_commit(
    template: Path, tmp_path: Path, children: Children
) -> None:
    before = run_git(template / "vault", "rev-parse", "HEAD").stdout.strip()
    counted = tmp_path / "counted"
    shutil.copytree(template, counted, symlinks=True)
    events = _child(children, counted, 0).stdout.split()
    _nothing_lost(counted / "vault")
    commands = [n for n, event in enumerate(events, 1) if event == "subprocess.Popen"]
    renames = [n for n, event in enumerate(events, 1) if event == "os.rename"]
    # Around every git command (listing, fetch, push), inside the merge's journal and
    # file switching, and evenly spread over the rest.
    points = {n for c in commands for n in (c, c + 1)} | {renames[0], renames[1], renames[-1]}
    points |= set(range(1, len(events) + 1, max(1, len(events) // 8))) | {len(events)}
    seen: dict[str, int] = {}
    for at in sorted(points):
        base = tmp_path / f"killed-{at}"
        shutil.copytree(template, base, symlinks=True)
        done = _child(children, base, at)
        assert done.returncode == -9, (at, done.stderr)
        outcome = _equal_to_a_commit(base / "vault", before)
        seen[outcome] = seen.get(outcome, 0) + 1
        # The next round (the next interval) finishes what the killed one began.
        again = RemoteSync(make_vault(base / "vault"), str(base / "remote.git")).run()
        assert again.problem is None
        _nothing_lost(base / "vault")
        shutil.rmtree(base)
    assert seen.get("old", 0) > 3 and seen.get("merge", 0) > 3, seen
