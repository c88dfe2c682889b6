"""Two-way sync with a git remote (storage.vault.remote_sync), with a bare remote on
this disk and a second clone acting as the person's laptop.

1. device push -> searchable: the laptop pushes a note with a word no other note
   has, while the bot syncs every INTERVAL_S seconds (as BRAINBOT_GIT_PULL_INTERVAL
   does); the clock stops when `search` finds it. Target: the interval plus a
   second (median over 20 pushes). Also the round alone (a push webhook's call:
   the round starts right after the push).
2. a sync with nothing new over 100 vaults, each with its own remote: one
   `ls-remote` each, no fetch; in turn and 4 at a time (as `brainbot run` does).
3. a merge of 100 changed notes: the laptop changed 100 notes, the bot 100 others,
   in a 1,000-note vault; one round (fetch, merge through the journal, push, index).

Postgres is the embedded one in a temporary folder unless DATABASE_URL is set.

Run: `python -m bench.sync [pushes]`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from storage.db.connection import Database
from storage.store import Store
from storage.vault.remote_sync import RemoteSync
from storage.vault.schema import DEFAULT_CATEGORIES
from storage.vault.vault import Vault
from tests.storage.vault.sync_support import Device, bare_remote
from tests.storage.vault.vault_support import ANN, LIMITS, make_vault

INTERVAL_S = 1.0
TARGET_S = INTERVAL_S + 1.0
VAULTS = 100
NOTES = 1_000
CHANGED = 100
POLL_S = 0.01


def seeded_vault(root: Path, notes: int) -> None:
    """A vault folder with `notes` small notes, committed as one change."""
    vault = make_vault(root)
    files = {
        f"ideas/note-{n:04d}.md": f"---\ntitle: Note {n}\n---\n\nfirst line {n}\n\nlast line {n}\n"
        for n in range(notes)
    }
    for rel, text in files.items():
        (root / rel).write_text(text)
    vault.commit_outside_edits()


async def searchable(store: Store, word: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not (await store.search(word)).hits:
        if time.monotonic() > deadline:
            raise AssertionError(f"{word} was not found within {within} s")
        await asyncio.sleep(POLL_S)


async def push_to_searchable(root: Path, pushes: int) -> tuple[list[float], list[float]]:
    """Seconds from a device's push to the note being found: with the interval's
    rounds, and with a round started right after the push (a webhook)."""
    remote = bare_remote(root / "remote.git")
    seeded_vault(root / "vault", 200)
    database = await Database.connect(os.environ.get("DATABASE_URL"), root / "data")
    interval: list[float] = []
    webhook: list[float] = []
    try:
        store = await Store.open(
            vault_dir=root / "vault",
            categories=DEFAULT_CATEGORIES,
            database=database,
            embedder=None,
            **LIMITS,
        )
        await store.sync_remote(str(remote))
        laptop = Device(remote, root / "laptop")

        async def rounds() -> None:
            while True:
                await asyncio.sleep(INTERVAL_S)
                await store.sync_remote(str(remote))

        task = asyncio.create_task(rounds())
        try:
            for number in range(pushes):
                word = f"zanzibar{number:03d}q"
                laptop.write(f"inbox/pushed-{number}.md", f"# Pushed {number}\n\n{word}\n")
                laptop.commit()
                started = time.perf_counter()
                laptop.push()
                await searchable(store, word)
                interval.append(time.perf_counter() - started)
                laptop.pull()
        finally:
            task.cancel()
        for number in range(pushes):
            word = f"kilimanjaro{number:03d}q"
            laptop.write(f"inbox/hooked-{number}.md", f"# Hooked {number}\n\n{word}\n")
            laptop.commit()
            started = time.perf_counter()
            laptop.push()
            await store.sync_remote(str(remote))
            await searchable(store, word)
            webhook.append(time.perf_counter() - started)
        await store.close()
    finally:
        await database.close()
    return interval, webhook


def nothing_new(root: Path) -> tuple[float, float, bool]:
    """Seconds for one round over every vault with nothing new: in turn, 4 at a
    time; and whether any round fetched."""
    vaults: list[tuple[Vault, str]] = []
    for number in range(VAULTS):
        remote = bare_remote(root / f"remote-{number}.git")
        vault = make_vault(root / f"vault-{number}")
        vault.create("ideas", f"Note {number}", "a line", author=ANN)
        RemoteSync(vault, str(remote)).run()
        vaults.append((vault, str(remote)))
    started = time.perf_counter()
    done = [RemoteSync(vault, remote).run() for vault, remote in vaults]
    in_turn = time.perf_counter() - started
    started = time.perf_counter()
    with ThreadPoolExecutor(4) as pool:
        done += list(pool.map(lambda pair: RemoteSync(*pair).run(), vaults))
    parallel = time.perf_counter() - started
    return in_turn, parallel, any(r.fetched or r.outcome != "nothing-new" for r in done)


async def merge_of_changed_notes(root: Path) -> tuple[float, int]:
    """Seconds of one round that merges CHANGED notes from the laptop with CHANGED
    others the bot changed, and the notes it indexed."""
    remote = bare_remote(root / "remote.git")
    seeded_vault(root / "vault", NOTES)
    database = await Database.connect(os.environ.get("DATABASE_URL"), root / "data")
    try:
        store = await Store.open(
            vault_dir=root / "vault",
            categories=DEFAULT_CATEGORIES,
            database=database,
            embedder=None,
            **LIMITS,
        )
        await store.sync_remote(str(remote))
        laptop = Device(remote, root / "laptop")
        for n in range(CHANGED):
            path = f"ideas/note-{n:04d}.md"
            laptop.write(path, laptop.read(path).replace(f"last line {n}", f"laptop {n}"))
        laptop.commit()
        laptop.push()
        for n in range(CHANGED, 2 * CHANGED):
            (root / "vault" / f"ideas/note-{n:04d}.md").write_text(f"# Note {n}\n\nbot {n}\n")
        store.vault.commit_outside_edits()
        await store.sync()
        started = time.perf_counter()
        done = await store.sync_remote(str(remote))
        seconds = time.perf_counter() - started
        assert done.outcome == "merged" and not done.conflicts, done
        indexed = len((await store.search("laptop", limit=200)).hits)
        await store.close()
    finally:
        await database.close()
    return seconds, indexed


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when push -> searchable misses the target."""
    pushes = int(argv[0]) if argv else 20
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-sync-") as tmp:
        root = Path(tmp)
        for folder in ("push", "quiet", "merge"):
            (root / folder).mkdir()
        interval, webhook = asyncio.run(push_to_searchable(root / "push", pushes))
        in_turn, parallel, fetched = nothing_new(root / "quiet")
        merge_s, indexed = asyncio.run(merge_of_changed_notes(root / "merge"))
    median = statistics.median(interval)
    print(
        f"sync: device push -> searchable, {pushes} pushes, interval {INTERVAL_S:g} s: "
        f"median {median:.2f} s, max {max(interval):.2f} s (target {TARGET_S:g} s); "
        f"round right after the push (webhook): median {statistics.median(webhook) * 1000:.0f} ms"
    )
    print(
        f"sync: nothing new on {VAULTS} vaults: {in_turn:.2f} s in turn "
        f"({in_turn / VAULTS * 1000:.1f} ms a vault), {parallel:.2f} s 4 at a time; "
        f"fetched: {'yes (wrong)' if fetched else 'no'}"
    )
    print(
        f"sync: merge of {CHANGED} notes from the laptop with {CHANGED} of the bot's in a "
        f"{NOTES:,}-note vault: {merge_s:.2f} s (fetch, merge, push, index; "
        f"{indexed} laptop notes found)"
    )
    return 0 if median <= TARGET_S and not fetched and indexed == CHANGED else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
