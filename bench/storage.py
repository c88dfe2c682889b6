"""Storage speed on a generated vault of 10,000 notes, with the deterministic hashing
embedder so the model's own time is not counted, on an embedded Postgres of its own.

| what | target |
| --- | --- |
| import (copy, one commit, index) | >= 300 notes/s |
| create one entry (file + commit + index) | median <= 30 ms |
| hybrid search | median <= 25 ms |
| incremental sync after one file edited by hand | median <= 200 ms |
| peak RSS of this process while searching | <= 300 MB |

Run: `python -m bench.storage [notes]`.
"""

from __future__ import annotations

import asyncio
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.storage_corpus import generate, write_notes
from storage.db.connection import Database
from storage.index.embeddings import HashingEmbedder, LocalEmbedder
from storage.store import Store
from tests.storage.vault.vault_support import LIMITS

CATEGORIES = ("people", "projects", "ideas", "admin", "inbox")
DIMENSIONS = 384  # as all-MiniLM-L6-v2
CREATES = 40
SEARCHES = 200
SYNCS = 20


@dataclass(frozen=True, slots=True)
class Figure:
    name: str
    value: float
    unit: str
    target: float
    higher_is_better: bool = False

    @property
    def ok(self) -> bool:
        return self.value >= self.target if self.higher_is_better else self.value <= self.target


async def median_ms(runs: int, step: Callable[[int], Awaitable[object]]) -> float:
    timings = []
    for number in range(runs):
        started = time.perf_counter()
        await step(number)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def reset_peak_rss() -> bool:
    """Start a new high-water mark of this process' RSS (Linux); False if unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def local_query_ms(queries: Sequence[str]) -> float | None:
    """Median time to embed one question with the local extra's model; None when the
    extra is not installed."""
    try:
        embedder = LocalEmbedder()
        await embedder.embed_queries([queries[0]])  # load the model
    except Exception:
        return None

    async def embed(number: int) -> None:
        await embedder.embed_queries([queries[number % len(queries)]])

    return await median_ms(SEARCHES, embed)


async def measure(store: Store, src: Path, queries: Sequence[str]) -> list[Figure]:
    started = time.perf_counter()
    result = await store.import_folder(src)
    rate = len(result.imported) / (time.perf_counter() - started)
    figures = [Figure(f"import {len(result.imported)} notes", rate, "notes/s", 300, True)]

    async def create(number: int) -> None:
        await store.create("inbox", f"Bench capture {number}", f"Quick thought number {number}.")

    figures.append(Figure("create one entry", await median_ms(CREATES, create), "ms", 30))

    async def search(number: int) -> None:
        results = await store.search(queries[number % len(queries)], limit=10)
        assert results.mode == "hybrid"

    await search(0)  # warm the connection pool and the caches
    reset = reset_peak_rss()
    figures.append(Figure("hybrid search", await median_ms(SEARCHES, search), "ms", 25))
    rss_name = "peak RSS while searching" + ("" if reset else " (whole run)")
    figures.append(Figure(rss_name, peak_rss_mb(), "MB", 300))
    local = await local_query_ms(queries)
    if local is not None:
        # With BRAINBOT_EMBEDDINGS=local each search first embeds its question on the
        # CPU: search time plus this is what a person waits for.
        figures.append(Figure("embed one question (local E5)", local, "ms", 25))

    paths = list(result.imported)

    timings = []
    for number in range(SYNCS):
        note = store.vault.root / paths[(number * 997) % len(paths)]
        note.write_text(note.read_text() + f"\nEdited by hand, take {number}.\n")
        # Only the sync is timed: its cost should follow the change, not the vault.
        started = time.perf_counter()
        report = await store.sync()
        timings.append((time.perf_counter() - started) * 1000)
        assert report.indexed == 1, report
    figures.append(Figure("sync after one hand edit", statistics.median(timings), "ms", 200))
    return figures


async def run(count: int) -> list[Figure]:
    notes, questions = generate(count, queries=SEARCHES, seed=3)
    root = Path(tempfile.mkdtemp(prefix="brainbot-bench-"))
    try:
        write_notes(notes, root / "import")
        database = await Database.connect(None, root / "data")
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=CATEGORIES,
                database=database,
                embedder=HashingEmbedder(DIMENSIONS),
                **LIMITS,
            )
            try:
                return await measure(store, root / "import", [q.text for q in questions])
            finally:
                await store.close()
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: Sequence[str] = ()) -> int:
    """Print the table; exit 1 when a figure misses its target."""
    count = int(argv[0]) if argv else 10_000
    figures = asyncio.run(run(count))
    print(f"\nStorage, {count:,} generated notes, hashing embedder ({DIMENSIONS} dimensions)\n")
    print(f"| {'what':<34} | {'figure':>16} | {'target':>16} | ok  |")
    print(f"| {'-' * 34} | {'-' * 16} | {'-' * 16} | --- |")
    for f in figures:
        value = f"{f.value:.1f} {f.unit}"
        target = f"{'>=' if f.higher_is_better else '<='} {f.target:g} {f.unit}"
        ok = "yes" if f.ok else "NO"
        print(f"| {f.name:<34} | {value:>16} | {target:>16} | {ok:<3} |")
    return 0 if all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
