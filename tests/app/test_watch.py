"""The vault watcher (app.watch): which file events count, which vault they are
in, one sync per burst, and a watch that cannot start falls back with one warning."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from watchfiles import Change

from app.runtime import Runtime
from app.watch import NoteEvents, changes_by_vault, look_at_changes, watch_vaults
from storage.entry import BOT_AUTHOR
from storage.store import Store
from tests.fakes.brain import running_brain
from tests.storage.vault.vault_support import git

ROOT = Path("/home/ann/.local/share/brainbot")  # hidden folders above the vault are fine
OWNER = ROOT / "vault"
OTHERS = ROOT / "vaults"


@pytest.mark.parametrize(
    ("change", "rel", "counts"),
    [
        (Change.added, "vault/ideas/heron.md", True),
        (Change.modified, "vault/heron.md", True),
        (Change.deleted, "vaults/bob-2/projects/kite.md", True),
        (Change.deleted, "vault/ideas", True),  # a folder moved away takes its notes
        (Change.modified, "vault/.git/index", False),
        (Change.added, "vault/.git/objects/ab/cdef", False),
        (Change.modified, "vault/.obsidian/workspace.json", False),
        (Change.added, "vault/ideas/.heron.md.1a2b3c4d.bbtmp", False),  # our own temp file
        (Change.added, "vault/ideas/photo.png", False),
        (Change.modified, "vault/ideas/heron.md~", False),
        (Change.added, "pg/base/1234", False),
    ],
)
def test_which_events_count(change: Change, rel: str, counts: bool) -> None:
    assert NoteEvents([OWNER, OTHERS])(change, str(ROOT / rel)) is counts


def test_a_new_folder_counts_a_new_file_that_is_no_note_does_not(tmp_path: Path) -> None:
    (tmp_path / "ideas").mkdir()
    (tmp_path / "ideas" / "notes.txt").write_text("not a note")
    events = NoteEvents([tmp_path])
    assert events(Change.added, str(tmp_path / "ideas"))
    assert not events(Change.added, str(tmp_path / "ideas" / "notes.txt"))


def test_each_path_is_mapped_to_the_open_vault_it_is_in() -> None:
    open_vaults = {OWNER: "owner", OTHERS / "bob-2": "bob", OTHERS / "team-x": "team"}
    paths = [
        str(OTHERS / "team-x" / "ideas" / "a.md"),
        str(OWNER / "ideas" / "a.md"),
        str(OWNER / "ideas" / "b.md"),
        str(OTHERS / "carol-3" / "ideas" / "a.md"),  # not open here: synced when it opens
        str(OTHERS / "stray.md"),  # in no vault
    ]
    assert changes_by_vault(paths, OWNER, OTHERS, open_vaults) == [
        ("owner", ["ideas/a.md", "ideas/b.md"]),
        ("team", ["ideas/a.md"]),
    ]


async def needs_sync(store: Store, paths: list[str]) -> bool:
    return (await look_at_changes(store, paths)).sync


async def test_only_a_change_the_index_has_not_seen_needs_a_sync(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        store = brain.store
        kite = await store.create("ideas", "Kite", "A red kite.")
        assert not await needs_sync(store, [kite.path])  # our own write: indexed already
        assert not await needs_sync(store, ["ideas/never-there.md"])

        (store.vault.root / kite.path).write_text("---\ntitle: Kite\n---\nA blue kite.\n")
        assert await needs_sync(store, [kite.path])
        await store.sync()
        assert not await needs_sync(store, [kite.path])

        (store.vault.root / kite.path).unlink()
        assert await needs_sync(store, ["ideas/never-there.md", kite.path])
        assert await needs_sync(store, ["ideas"])  # a folder: only a sync can tell

        # A file kept from chat is no note: nothing to index, whatever it holds.
        (kept,) = await store.write_attachments([("evil.md", b"hello\x00world")], author=BOT_AUTHOR)
        assert not await needs_sync(store, [kept])
        (store.vault.root / "attachments" / "by-hand.md").write_text("By hand.\n")
        assert not await needs_sync(store, ["attachments/by-hand.md", "attachments"])


@contextlib.asynccontextmanager
async def watching(brain: Runtime) -> AsyncIterator[asyncio.Task[None]]:
    stop = asyncio.Event()
    task = asyncio.create_task(
        watch_vaults(brain.vaults, stop, brain.skips, fallback="the sync finds them")
    )
    try:
        await asyncio.sleep(0.3)  # the watch starts in a worker thread
        yield task
    finally:
        stop.set()
        started = time.monotonic()
        await asyncio.wait_for(task, 10)
        assert time.monotonic() - started < 2  # stopped at once, not at a timeout


async def test_a_burst_of_hand_edits_is_synced_and_committed_in_one_or_two_goes(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain, watching(brain):
        vault = brain.settings.vault_dir
        for n in range(200):
            (vault / "ideas" / f"burst-{n}.md").write_text(f"# Burst {n}\n\nwalrus{n}\n")
        deadline = time.monotonic() + 20
        while not (await brain.store.search("walrus199")).hits:
            assert time.monotonic() < deadline, "the burst was not indexed"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # any later sync of the same burst would be done by now
        hand_commits = git(vault, "log", "--author=outside@brainbot.local", "--format=%s")
        assert 1 <= len(hand_commits.splitlines()) <= 2
        assert len((await brain.store.search("walrus0")).hits) == 1


async def test_a_watch_that_cannot_start_warns_once_and_returns(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        (brain.settings.data_dir / "vaults").write_text("a file where the vaults folder goes")
        with caplog.at_level(logging.WARNING, logger="app.watch"):
            await asyncio.wait_for(
                watch_vaults(
                    brain.vaults, asyncio.Event(), brain.skips, fallback="the sync finds them"
                ),
                10,
            )
    warnings = [r.getMessage() for r in caplog.records if r.name == "app.watch"]
    assert len(warnings) == 1
    assert "cannot watch the vaults" in warnings[0]
    assert warnings[0].endswith("the sync finds them")
