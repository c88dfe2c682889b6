"""A write returns before the vault's git index is written (storage.writer): the index
is only a cache of `git status`. Whatever comes next (a sync, another process's
write, the store closing, a hand git command holding the index) sees the bot's notes
as the bot's: no hand edit is recorded, and `git status` is clean in the end."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from storage.entry import OUTSIDE_AUTHOR
from tests.storage.index.index_support import opened_store


def _git(vault: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=vault, capture_output=True, text=True, check=True)
    return done.stdout


def _authors(vault: Path) -> set[str]:
    return set(_git(vault, "log", "--format=%an").splitlines())


async def test_a_sync_right_after_a_write_finds_no_hand_edit(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        for number in range(5):
            entry = await store.create("ideas", f"Kite {number}", "Fly it on the hill.")
            report = await store.sync()  # at once, before anything else could run
            assert (report.indexed, report.removed) == (0, 0)
            assert _git(vault, "log", "-1", "--format=%s") == f"create {entry.path}\n"
        assert _git(vault, "status", "--porcelain") == ""
    assert OUTSIDE_AUTHOR.name not in _authors(vault)


async def test_two_stores_writing_at_once_leave_a_clean_status_and_no_hand_edit(
    tmp_path: Path, database_url: str
) -> None:
    """Two processes' stores on one folder, each with its own git index in memory."""
    vault = tmp_path / "vault"
    async with (
        opened_store(vault, database_url, keyword_only=True) as first,
        opened_store(vault, database_url, keyword_only=True) as second,
    ):
        await asyncio.gather(
            *(first.create("ideas", f"First {n}", "x") for n in range(10)),
            *(second.create("ideas", f"Second {n}", "y") for n in range(10)),
        )
        report = await first.sync()
        assert (report.indexed, report.removed) == (0, 0)
        assert await first.index.count() == 20
    assert _git(vault, "status", "--porcelain") == ""
    assert OUTSIDE_AUTHOR.name not in _authors(vault)
    assert len(_git(vault, "ls-files", "ideas").splitlines()) == 21  # and the .gitkeep


async def test_a_git_index_held_by_hand_fails_no_write_and_is_written_later(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        lock = vault / ".git" / "index.lock"  # a `git add` run by hand, still running
        lock.write_bytes(b"")
        held = [await store.create("ideas", f"Held {n}", "z") for n in range(2)]
        assert [h.path for h in (await store.search("held")).hits] != []
        lock.unlink()
        after = await store.create("ideas", "After", "z")
    assert _git(vault, "status", "--porcelain") == ""
    tracked = set(_git(vault, "ls-files", "ideas").splitlines())
    assert {entry.path for entry in (*held, after)} <= tracked
    assert OUTSIDE_AUTHOR.name not in _authors(vault)
