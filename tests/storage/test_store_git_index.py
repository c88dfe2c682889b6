"""The vault's git index follows the store's writes a moment after them (storage.writer):
`git status` comes out clean once they pause, at once when the store closes, and a
sync right after a write never takes the bot's own note for a hand edit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import ANN, git


async def _status_once_settled(root: Path, within: float = 10.0) -> str:
    deadline = time.monotonic() + within
    while status := git(root, "status", "--porcelain"):
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    return status


async def test_the_git_index_follows_a_burst_of_writes(tmp_path: Path, database_url: str) -> None:
    root = tmp_path / "vault"
    async with opened_store(root, database_url) as store:
        tea = await store.create("ideas", "Tea", "Green tea.", author=ANN)
        await store.create("ideas", "Kites", "Fly them.", author=ANN)
        await store.update(tea.path, body="Oolong.", author=ANN)
        assert await _status_once_settled(root) == ""
        assert git(root, "diff", "--cached", "--name-only") == ""
        await store.create("projects", "Roof", "Fix the roof.", author=ANN)
        assert await _status_once_settled(root) == ""


async def test_closing_the_store_writes_the_git_index_its_writes_left(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    async with opened_store(root, database_url) as store:
        await store.create("ideas", "Tea", "Green tea.", author=ANN)
    assert git(root, "status", "--porcelain") == ""


async def test_a_sync_right_after_a_write_finds_no_hand_edit(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    async with opened_store(root, database_url) as store:
        tea = await store.create("ideas", "Tea", "Green tea.", author=ANN)
        commits = git(root, "log", "--format=%an|%s").splitlines()
        report = await store.sync()
        assert report.indexed == 0 and report.removed == 0
        assert git(root, "log", "--format=%an|%s").splitlines() == commits
        assert git(root, "status", "--porcelain") == ""
        (root / tea.path).write_text("Black tea, edited by hand.\n")
        await store.sync()
        assert git(root, "log", "--format=%an|%s").splitlines()[0] == (
            f"edited outside brainbot|edit {tea.path}"
        )
