"""Private vaults at scale: 1,000 people x 100 notes in one database.

One person's capture and search are timed twice: when theirs is the only vault,
and again after 999 other people's vaults of 100 notes each were added. Every
index query is scoped to the vault (its rows lead every index), so the figures
should not grow with other people's notes; the bench fails (exit 1) when a median
grows by more than half plus 2 ms. Index size and memory are reported.

Vectors come from the hashing embedder (384 dimensions, no model), so the figures
are the database's and the vault's own. Run: `python -m bench.vaults [--people N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import text

from bench.storage import median_ms, peak_rss_mb
from bench.storage_corpus import generate, write_notes
from storage.db.connection import Database
from storage.index import vector_setup
from storage.index.embeddings import HashingEmbedder
from storage.migrations import migrate
from storage.store import Store
from storage.vault.schema import DEFAULT_CATEGORIES
from storage.vaults import Vaults, VaultSettings
from tests.storage.vault.vault_support import LIMITS

NOTES = 100
RUNS = 40
DIMENSIONS = 384
INDEX_TABLES = ("entries", "chunks", "postings", "terms", "links", "index_meta")


async def _measure(store: Store, queries: Sequence[str], label: str) -> tuple[float, float]:
    capture = await median_ms(
        RUNS, lambda n: store.create("ideas", f"{label} thought {n}", f"A thought, number {n}.")
    )
    search = await median_ms(RUNS, lambda n: store.search(queries[n % len(queries)], limit=10))
    return capture, search


async def _fill(vaults: Vaults, user_id: int, source: Path) -> None:
    store = await vaults.store(await vaults.of_person(user_id, f"person {user_id}"))
    await store.import_folder(source)


async def run(people: int) -> int:
    root = Path(tempfile.mkdtemp(prefix="brainbot-vaults-"))
    database = await Database.connect(None, root)
    try:
        await migrate(database.engine)
        vaults = Vaults(
            database,
            HashingEmbedder(DIMENSIONS),
            VaultSettings(root, root / "vault", DEFAULT_CATEGORIES, **LIMITS),
            keep_open=8,
        )
        notes, queries = generate(NOTES, queries=RUNS, seed=11)
        source = root / "notes"
        write_notes(notes, source)
        await _fill(vaults, 1, source)
        mine = await vaults.store(await vaults.of_person(1, "person 1"))
        words = [q.text for q in queries]
        alone = await _measure(mine, words, "alone")

        started = time.perf_counter()
        async with database.engine.begin() as conn:
            await vector_setup.drop_vector_index(conn)  # one build at the end beats 100k inserts
        for user_id in range(2, people + 1):
            await _fill(vaults, user_id, source)
            if user_id % 100 == 0:
                print(
                    f"  {user_id} vaults filled, {time.perf_counter() - started:.0f} s", flush=True
                )
        async with database.engine.begin() as conn:
            await vector_setup.create_vector_index(conn, DIMENSIONS)
            await conn.execute(text("ANALYZE " + ", ".join(INDEX_TABLES)))
        build = time.perf_counter() - started
        crowded = await _measure(mine, words, "crowded")

        async with database.engine.connect() as conn:
            sizes = {
                t: int(
                    (await conn.execute(text(f"SELECT pg_total_relation_size('{t}')"))).scalar_one()
                )
                for t in INDEX_TABLES
            }
            notes_indexed = int(
                (await conn.execute(text("SELECT count(*) FROM entries"))).scalar_one()
            )
            db_size = int(
                (
                    await conn.execute(text("SELECT pg_database_size(current_database())"))
                ).scalar_one()
            )
    finally:
        await database.close()
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"{people} people x {NOTES} notes: {notes_indexed:,} notes indexed, built in {build:.0f} s"
    )
    print(f"{'':24}{'alone':>10}{f'among {people}':>14}")
    failed = False
    for name, a, b in (
        ("capture (median ms)", alone[0], crowded[0]),
        ("search (median ms)", alone[1], crowded[1]),
    ):
        grew = b > a * 1.5 + 2.0
        failed |= grew
        print(f"{name:24}{a:>10.1f}{b:>14.1f}{'  GREW' if grew else ''}")
    print(
        f"index size: {sum(sizes.values()) / 2**20:,.0f} MB ("
        + ", ".join(f"{t} {s / 2**20:,.0f}" for t, s in sizes.items())
        + f"); database {db_size / 2**20:,.0f} MB"
    )
    print(f"bench process peak RSS: {peak_rss_mb():.0f} MB")
    return 1 if failed else 0


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vaults")
    parser.add_argument("--people", type=int, default=1000)
    return asyncio.run(run(parser.parse_args(argv).people))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
