"""A large import in one vault never holds up another person's search, and a crash
part-way through it leaves the vault's index behind, never half-done as finished:
the next open finishes it.

The other person searches from a process of their own whose connection gives up on
any lock after a second (lock_timeout): a search the import blocked fails with an
error instead of answering, so nothing here depends on timing.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from storage.db.connection import Database
from storage.index import bulk
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from storage.store import Store
from tests.storage.index.index_support import connected, note
from tests.storage.vault.vault_support import CATEGORIES, LIMITS

ROOT = Path(__file__).resolve().parents[2]
ALICE, BOB = 1, 2
NOTES = 2 * bulk.BATCH + 200  # three rounds of an import

# The other person: opens vault 1's index before the import starts, then answers one
# search a line ("keyword QUERY" or "hybrid QUERY") with the paths found, or the error.
SEARCHER = r"""
import asyncio, json, sys
from pathlib import Path
from storage.db.connection import Database
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index

async def main(url):
    database = await Database.connect(url, Path("unused"))
    hybrid = await Index.open(database, HashingEmbedder(64), vault_id=1)
    keyword = await Index.open(database, None, vault_id=1)
    print("ready", flush=True)
    for line in sys.stdin:
        mode, query = line.rstrip("\n").split(" ", 1)
        try:
            found = await (hybrid if mode == "hybrid" else keyword).search(query)
            answer = {"mode": found.mode, "paths": [hit.path for hit in found.hits]}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)
    await database.close()

asyncio.run(main(sys.argv[1]))
"""

# Bob's import, killed (SIGKILL, as a crash or `kill -9`) after its first round.
CRASHING_IMPORT = r"""
import asyncio, os, signal, sys
from pathlib import Path
from storage.db.connection import Database
from storage.index.embeddings import HashingEmbedder
from storage.store import Store
from tests.storage.vault.vault_support import CATEGORIES, LIMITS

def crash(phase, done, total):
    if phase == "index" and done < total:
        os.kill(os.getpid(), signal.SIGKILL)

async def main(url, vault, source):
    database = await Database.connect(url, Path("unused"))
    store = await Store.open(vault_dir=Path(vault), categories=CATEGORIES, database=database,
                             embedder=HashingEmbedder(64), vault_id=2, **LIMITS)
    await store.import_folder(Path(source), crash)

asyncio.run(main(*sys.argv[1:]))
"""


def export(root: Path) -> Path:
    """A folder of NOTES notes about rivers, none of them about zeppelins."""
    source = root / "export"
    (source / "rivers").mkdir(parents=True)
    for number in range(NOTES):
        (source / "rivers" / f"river {number}.md").write_text(
            f"# River {number}\n\nThe river floods in spring; its ferry, the "
            f"{ferry(number)}, runs at dawn.\n"
        )
    return source


def ferry(number: int) -> str:
    """A name of one ferry alone: three letters of its own, as "ferry-bqa"."""
    return "ferry-" + "".join(chr(ord("a") + number // 26**i % 26) for i in range(3))


def with_lock_timeout(url: str) -> str:
    """`url` whose sessions give up on any lock after a second."""
    return f"{url}{'&' if '?' in url else '?'}options=-c%20lock_timeout%3D1000"


@contextmanager
def searcher(database_url: str) -> Iterator[Any]:
    """Another person's search process on vault 1; yields ask(mode, query) -> answer."""
    process = subprocess.Popen(
        [sys.executable, "-c", SEARCHER, with_lock_timeout(database_url)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def ask(mode: str, query: str) -> dict[str, Any]:
        stdin.write(f"{mode} {query}\n")
        stdin.flush()
        answer: dict[str, Any] = json.loads(stdout.readline())
        return answer

    try:
        assert stdout.readline().strip() == "ready"
        yield ask
    finally:
        stdin.close()
        process.wait(timeout=60)


async def open_bob(database: Database, vault: Path) -> Store:
    return await Store.open(
        vault_dir=vault,
        categories=CATEGORIES,
        database=database,
        embedder=HashingEmbedder(64),
        vault_id=BOB,
        **LIMITS,
    )


@pytest.mark.slow(seconds=5)
async def test_another_persons_searches_answer_while_an_import_runs(
    tmp_path: Path, database_url: str
) -> None:
    source = export(tmp_path)
    async with connected(database_url) as database:
        alice = await Index.open(database, HashingEmbedder(64), vault_id=ALICE)
        await alice.upsert(
            [
                note("projects/launch.md", "Launch the zeppelin from the hangar.", title="Launch"),
                note("ideas/kite.md", "A red kite for the windy days."),
            ]
        )
        bob = await open_bob(database, tmp_path / "bob")
        answers: list[dict[str, Any]] = []
        with searcher(database_url) as ask:

            def progress(phase: str, done: int, total: int) -> None:
                # Between the import's rounds (the old import was inside its one
                # transaction here): Alice searches by words and by meaning.
                if phase == "index" and done < total:
                    answers.append(ask("keyword", "zeppelin hangar"))
                    answers.append(ask("hybrid", "zeppelin hangar"))

            result = await bob.import_folder(source, progress)
            after = ask("hybrid", "zeppelin hangar")
        found = await bob.search(ferry(1111))
        await bob.close()
    assert len(answers) == 4
    for answer in answers:
        assert "error" not in answer, answer["error"]  # a lock held it over a second
        assert answer["paths"][0] == "projects/launch.md"
        assert all(not path.startswith("rivers/") for path in answer["paths"])
    assert [a["mode"] for a in answers] == ["keyword", "hybrid"] * 2
    assert after["paths"][0] == "projects/launch.md"
    assert len(result.imported) == NOTES
    assert found.hits[0].path == "rivers/river 1111.md"


@pytest.mark.slow(seconds=4)
async def test_an_import_killed_part_way_is_not_finished_and_the_next_open_finishes_it(
    tmp_path: Path, database_url: str
) -> None:
    source = export(tmp_path)
    vault = tmp_path / "bob"
    crashed = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", CRASHING_IMPORT, database_url, str(vault), str(source)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert crashed.returncode == -signal.SIGKILL
    head = (
        await asyncio.to_thread(
            subprocess.run,
            ["git", "-C", str(vault), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    ).stdout.strip()
    async with connected(database_url) as database:
        bob = Index(database, HashingEmbedder(64), vault_id=BOB)
        # The first round is in, but the index does not say it reflects the import.
        assert 0 < await bob.count() < NOTES
        assert await bob.last_commit() != head
        store = await open_bob(database, vault)  # as a rerun of `brainbot import` does
        again = await store.import_folder(source)
        found = await store.search(ferry(1111))
        await store.close()
        assert await bob.count() == NOTES
        assert await bob.last_commit() == head
    assert again.written is None  # nothing copied twice
    assert found.hits[0].path == "rivers/river 1111.md"
