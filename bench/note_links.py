"""A note's outgoing links and a random open note, on a 10,000-note vault.
Targets: median <= 150 ms for the links of a note with 50 of them, <= 50 ms a draw.

The vault is bench.digest's generated one, plus a hub note linking to 50 notes by
name, one by a relative Markdown link and one to a note not written; resolving each
link the way backlinks are found reads every note's path and title once per call.
Postgres is the embedded one in a temporary folder unless DATABASE_URL is set.

Run: `python -m bench.note_links [runs]`.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from bench.digest import NOTES, write_vault
from storage.db.connection import Database
from storage.index.filters import Filters
from storage.index.lookups import random_entry
from storage.index.outlinks import outgoing_links
from storage.store import Store
from storage.vault.schema import CLOSED_STATUSES, DEFAULT_CATEGORIES
from tests.storage.vault.vault_support import LIMITS

LINKS_TARGET_MS = 150.0
DRAW_TARGET_MS = 50.0
WARMUP = 3
HUB = "ideas/hub.md"


async def _median_ms(runs: int, once: Callable[[], Awaitable[object]]) -> float:
    timings = []
    for number in range(WARMUP + runs):
        started = time.perf_counter()
        await once()
        if number >= WARMUP:
            timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


async def run(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-links-") as tmp:
        root = Path(tmp)
        write_vault(root / "source")
        links = " ".join(f"[[note-{n:05d}]]" for n in range(1, NOTES, NOTES // 50))
        hub = f"---\ntitle: Hub\n---\n{links} [x](note-09000.md) [[Not written]]\n"
        (root / "source" / HUB).write_text(hub, encoding="utf-8")
        database = await Database.connect(os.environ.get("DATABASE_URL"), root / "data")
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=DEFAULT_CATEGORIES,
                database=database,
                embedder=None,
                **LIMITS,
            )
            await store.import_folder(root / "source")
            entry = await store.read(HUB)
            found = await outgoing_links(database.engine, store.vault_id, HUB, entry.body)
            if sum(link.missing for link in found) != 1 or len(found) != 52:
                raise RuntimeError(f"the hub's links resolved wrongly: {found[:3]}")
            links_ms = await _median_ms(
                runs, lambda: outgoing_links(database.engine, store.vault_id, HUB, entry.body)
            )
            draw = random.Random(7).randrange

            async def pick() -> object:
                async with database.engine.connect() as conn:
                    return await random_entry(
                        conn,
                        store.vault_id,
                        Filters(),
                        skip_folders=("archive", "digests"),
                        closed=CLOSED_STATUSES,
                        draw=draw,
                    )

            draw_ms = await _median_ms(runs, pick)
            await store.close()
        finally:
            await database.close()
    return {"links_ms": links_ms, "draw_ms": draw_ms}


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when a median misses its target."""
    runs = int(argv[0]) if argv else 20
    result = asyncio.run(run(runs))
    print(
        f"note_links: on {NOTES:,} notes, {runs} runs: the 52 links of one note median "
        f"{result['links_ms']:.1f} ms (target ≤ {LINKS_TARGET_MS:.0f}); a random open note "
        f"median {result['draw_ms']:.1f} ms (target ≤ {DRAW_TARGET_MS:.0f})"
    )
    ok = result["links_ms"] <= LINKS_TARGET_MS and result["draw_ms"] <= DRAW_TARGET_MS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
