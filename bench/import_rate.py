"""Import rate: `brainbot import` of N pages into a fresh vault, as a user runs it,
then `brainbot reindex` of the same vault (every note unchanged: its vectors are
reused, not embedded again).

The pages are tldr-pages' English ones (github.com/tldr-pages/tldr, folders
pages/common and pages/linux, CC BY 4.0; 6,642 short command pages), taken from
<BRAINBOT_BENCH_CORPORA>/tldr/pages or `--corpus DIR`; without them a generated
corpus stands in (said so). Vectors come from the `local` extra's model when it is
installed (else the hashing embedder, said so). Prints pages per second, the time
spent embedding, and the minutes 6,642 pages would take; with the local model on
real pages it fails (exit 1) when that is over 10 minutes.

The machine may be shared, so the minutes are projected from what this process
spent, not from the clock: the CPU seconds per page spent embedding (the model's
threads, spread over CORES free cores) plus the wall seconds per page of the rest
(reading, parsing, writing the index).

Run: `python -m bench.import_rate [--pages N] [--corpus DIR] [--hashing]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.storage_corpus import generate, write_notes
from bench.storage_ranking import pick_embedder
from storage.db.connection import Database
from storage.index.embeddings import Embedder, LocalEmbedder, QueryEmbedder
from storage.migrations import migrate
from storage.store import Store
from storage.vault.schema import DEFAULT_CATEGORIES
from tests.storage.vault.vault_support import LIMITS

FULL = 6642  # tldr-pages' English pages (common + linux)
TARGET_MINUTES = 10.0
CORES = 2  # the machine the target is set for


class Timed:
    """An embedder that adds up the seconds (wall and this process's CPU) spent
    embedding notes."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.cpu = 0.0
        self.texts = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return await self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu += time.process_time() - cpu
            self.texts += len(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        inner = self.inner
        if isinstance(inner, QueryEmbedder):
            return await inner.embed_queries(texts)
        return await inner.embed(texts)


def pages(corpus: Path | None, count: int, into: Path) -> tuple[str, bool]:
    """Copy `count` pages (drawn at random, always the same ones) into `into`: what they
    are, and whether they are the corpus's (not generated)."""
    if corpus is not None and corpus.is_dir():
        found = sorted(corpus.rglob("*.md"))
        random.Random(7).shuffle(found)
        for page in found[:count]:
            target = into / page.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
        return f"{min(count, len(found))} of {len(found)} pages of {corpus.parent.name}", True
    notes, _ = generate(count)
    write_notes(notes, into)
    return f"{count} generated notes (no corpus at {corpus}: tldr-pages' not measured)", False


async def run(count: int, corpus: Path | None, hashing: bool) -> int:
    root = Path(tempfile.mkdtemp(prefix="brainbot-import-rate-"))
    source = root / "source"
    what, real = await asyncio.to_thread(pages, corpus, count, source)
    embedder, described = pick_embedder(hashing)
    timed = Timed(embedder)
    database = await Database.connect(None, root)
    try:
        await migrate(database.engine)
        store = await Store.open(
            vault_dir=root / "vault",
            categories=DEFAULT_CATEGORIES,
            database=database,
            embedder=timed,
            embed_in_background=False,
            **LIMITS,
        )
        started = time.perf_counter()
        result = await store.import_folder(source)
        seconds = time.perf_counter() - started
        imported = len(result.imported)
        embedded, cpu, passages = timed.seconds, timed.cpu, timed.texts
        timed.seconds = 0.0
        started = time.perf_counter()
        await store.reindex()
        reindex = time.perf_counter() - started
        await store.close()
    finally:
        await database.close()
        shutil.rmtree(root, ignore_errors=True)
    rate = imported / seconds
    per_page = cpu / imported / CORES + (seconds - embedded) / imported
    minutes = FULL * per_page / 60
    print(f"{what}; vectors: {described}; threads: {os.environ.get('OMP_NUM_THREADS', 'all')}")
    print(
        f"import: {imported} notes in {seconds:.1f} s = {rate:.1f} pages/s "
        f"({embedded:.1f} s embedding {passages} passages, {seconds - embedded:.1f} s the rest)"
    )
    print(
        f"  embedding: {cpu / imported:.3f} CPU s per page, "
        f"{cpu / max(passages, 1):.3f} per passage"
    )
    print(
        f"  {FULL:,} pages on {CORES} free cores: {minutes:.1f} min "
        f"(target <= {TARGET_MINUTES:.0f}; at this run's own rate {FULL / rate / 60:.1f} min)"
    )
    print(
        f"reindex of the same notes: {reindex:.1f} s = {imported / reindex:.1f} pages/s "
        f"({timed.seconds:.1f} s embedding: unchanged notes keep their vectors)"
    )
    measured = real and isinstance(embedder, LocalEmbedder)
    return 1 if measured and minutes > TARGET_MINUTES else 0


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.import_rate")
    parser.add_argument("--pages", type=int, default=300, help="pages imported (default 300)")
    parser.add_argument("--corpus", type=Path, help="a folder of pages (default: tldr-pages)")
    parser.add_argument("--hashing", action="store_true", help="the hashing embedder")
    args = parser.parse_args(argv)
    corpora = os.environ.get("BRAINBOT_BENCH_CORPORA")
    corpus = args.corpus or (Path(corpora) / "tldr" / "pages" if corpora else None)
    return asyncio.run(run(args.pages, corpus, args.hashing))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
