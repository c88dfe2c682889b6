"""Notes changed by hand, found by the vault watcher (app.watch) in a 10,000-note
vault. Target: a hand edit is searchable within a second (median).

1. edit -> searchable: a note is rewritten as an editor saves it, with a word no
   other note has; the clock stops when `search` finds it (median and p90).
2. a `git pull` of 500 new notes -> all 500 searchable.
3. what one sync costs, the watcher stopped: after one of brainbot's own writes
   (nothing to do), for a 1-note hand edit, and for a pulled commit of 500 changed
   notes: its cost follows the change, not the 10,000 notes.

The periodic sync is off (an hour), so only the watcher finds the edits. Postgres is
the embedded one in a temporary folder unless DATABASE_URL is set.

Run: `python -m bench.watch [edits]`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text

from app.runtime import Runtime
from app.watch import look_at_changes, watch_vaults
from bench.digest import write_vault
from bot.config import Settings
from storage.store import Store

TARGET_S = 1.0
NOTES = 10_000
PULLED = 500
POLL_S = 0.01
HAND = ("-c", "user.name=Ada", "-c", "user.email=ada@example.org")


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def inotify_watches() -> int:
    """Folders this process watches with inotify (Linux; 0 elsewhere): each takes one
    of the user's `fs.inotify.max_user_watches`."""
    count = 0
    for info in Path("/proc/self/fdinfo").glob("*"):
        try:
            count += info.read_text().count("inotify wd:")
        except OSError:
            continue
    return count


def note(title: str, words: str) -> str:
    return f"---\ntitle: {title}\ntags: [bench]\n---\n{words}\n"


async def wait_for(check: Callable[[], Awaitable[bool]], within: float = 120.0) -> float:
    """Seconds until `check()` is true, polled every POLL_S."""
    started = time.perf_counter()
    while not await check():
        if time.perf_counter() - started > within:
            raise RuntimeError(f"not searchable within {within:.0f} s")
        await asyncio.sleep(POLL_S)
    return time.perf_counter() - started


async def edit_to_searchable(store: Store, edits: int) -> list[float]:
    """Seconds from each hand edit until search finds its new word."""
    paths = sorted((store.vault.root / "ideas").glob("note-*.md"))[:edits]
    seconds: list[float] = []
    for number, path in enumerate(paths):
        word = f"okapi{number}x"

        async def found(word: str = word) -> bool:
            return bool((await store.search(word)).hits)

        path.write_text(note(f"Edited {number}", f"Seen an {word} today."), encoding="utf-8")
        seconds.append(await wait_for(found))
        await asyncio.sleep(0.2)  # the next edit is a burst of its own
    return seconds


async def pull_to_searchable(store: Store, laptop: Path) -> tuple[float, float]:
    """A `git pull` of PULLED new notes: (seconds the pull took, seconds from its
    start until every pulled note is indexed and the last one found by search)."""
    git(store.vault.root.parent, "clone", "-q", str(store.vault.root), str(laptop))
    for number in range(PULLED):
        (laptop / "ideas" / f"pulled-{number}.md").write_text(
            note(f"Pulled {number}", f"A pulled note about gnu{number}y."), encoding="utf-8"
        )
    git(laptop, "add", "-A")
    git(laptop, *HAND, "commit", "-qm", f"{PULLED} notes from a laptop")

    async def all_indexed() -> bool:
        async with store.database.engine.connect() as conn:
            count = (
                await conn.execute(
                    text(
                        "SELECT count(*) FROM entries"
                        " WHERE vault_id = :vault AND path LIKE 'ideas/pulled-%'"
                    ),
                    {"vault": store.vault_id},
                )
            ).scalar_one()
        return bool(count == PULLED and (await store.search(f"gnu{PULLED - 1}y")).hits)

    started = time.perf_counter()
    await asyncio.to_thread(git, store.vault.root, *HAND, "pull", "-q", "--ff-only", str(laptop))
    pulled = time.perf_counter() - started
    await wait_for(all_indexed)
    return pulled, time.perf_counter() - started


async def timed_sync(store: Store, expect: int) -> float:
    started = time.perf_counter()
    report = await store.sync()
    seconds = time.perf_counter() - started
    if report.indexed != expect:
        raise RuntimeError(f"the sync indexed {report.indexed} notes, expected {expect}")
    return seconds * 1000


async def sync_costs(store: Store, runs: int) -> dict[str, list[float]]:
    """Milliseconds per sync: after an own write, a 1-note hand edit, a 500-note commit;
    and of the watcher's look that skips the sync after an own write."""
    root = store.vault.root
    look: list[float] = []
    own: list[float] = []
    one: list[float] = []
    many: list[float] = []
    for number in range(runs):
        entry = await store.create("ideas", f"Own write {number}", "Written by brainbot.")
        started = time.perf_counter()
        if (await look_at_changes(store, [entry.path])).sync:
            raise RuntimeError("the watcher would sync after an own write")
        look.append((time.perf_counter() - started) * 1000)
        own.append(await timed_sync(store, 0))
        target = sorted((root / "projects").glob("note-*.md"))[number]
        target.write_text(note("One", f"one hand edit {number}"), encoding="utf-8")
        one.append(await timed_sync(store, 1))
    changed = sorted((root / "admin").glob("note-*.md")) + sorted(root.glob("people/note-*.md"))
    for number in range(3):
        for path in changed[:PULLED]:
            path.write_text(note("Many", f"round {number} of a big pull"), encoding="utf-8")
        git(root, "add", "-A")
        git(root, *HAND, "commit", "-qm", f"{PULLED} notes changed elsewhere")
        many.append(await timed_sync(store, PULLED))
    return {"look": look, "own": own, "one": one, "many": many}


def p90(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


@dataclass(frozen=True, slots=True)
class Figures:
    latencies: list[float]  # seconds, edit -> searchable
    watches: int  # inotify watches held for the vault
    pulled: float  # seconds the `git pull` took
    pull_total: float  # seconds from the pull's start until all is searchable
    costs: dict[str, list[float]]  # ms per sync, by kind of change


async def run(edits: int) -> Figures:
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-watch-") as tmp:
        root = Path(tmp)
        write_vault(root / "source", NOTES)
        settings = Settings(
            BRAINBOT_DATA_DIR=root / "data",
            DATABASE_URL=os.environ.get("DATABASE_URL"),
            BRAINBOT_EMBEDDINGS="none",
            BRAINBOT_SYNC_INTERVAL=3600,
        )
        runtime = await Runtime.open(settings)
        stop = asyncio.Event()
        try:
            store = runtime.store
            await store.import_folder(root / "source")
            watcher = asyncio.create_task(
                watch_vaults(runtime.vaults, stop, runtime.skips, fallback="the bench cannot run")
            )
            await asyncio.sleep(0.5)  # the watch starts in a worker thread
            latencies = await edit_to_searchable(store, edits)
            watches = inotify_watches()
            pulled, pull_total = await pull_to_searchable(store, root / "laptop")
            stop.set()
            await watcher
            costs = await sync_costs(store, 10)
        finally:
            stop.set()
            await runtime.close()
    return Figures(latencies, watches, pulled, pull_total, costs)


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when the edit -> searchable median misses the target."""
    edits = int(argv[0]) if argv else 20
    figures = asyncio.run(run(edits))
    latencies, costs = figures.latencies, figures.costs
    median = statistics.median(latencies)
    print(
        f"watch: {NOTES:,} notes; hand edit -> searchable, {len(latencies)} edits: "
        f"median {median:.2f} s, p90 {p90(latencies):.2f} s, max {max(latencies):.2f} s "
        f"(target ≤ {TARGET_S:.0f} s); {figures.watches} inotify watches"
    )
    print(
        f"watch: git pull of {PULLED} new notes took {figures.pulled:.2f} s; all {PULLED} "
        f"searchable {figures.pull_total:.2f} s after the pull began"
    )
    print(
        "watch: after an own write, the watcher's look (no sync) "
        f"{statistics.median(costs['look']):.1f} ms (p90 {p90(costs['look']):.1f})"
    )
    print(
        "watch: one sync, median ms (p90): after an own write "
        f"{statistics.median(costs['own']):.0f} ({p90(costs['own']):.0f}); "
        f"1-note hand edit {statistics.median(costs['one']):.0f} ({p90(costs['one']):.0f}); "
        f"{PULLED}-note commit {statistics.median(costs['many']):.0f} "
        f"({p90(costs['many']):.0f})"
    )
    return 0 if median <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
