"""A new embedder embeds every note in the background: the vault opens at once,
search answers by keyword meanwhile, progress is logged and readable from the
index, and a stop part-way goes on where it was at the next open."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.index.backfill import EmbeddingProgress, embedding_progress
from storage.index.embeddings import EmbeddingError, HashingEmbedder
from storage.index.index import REEMBEDDING
from storage.store import Store
from tests.storage.index.index_support import opened_store

NOTES = 120  # more than a sync embeds itself (backfill.INLINE)


class GatedEmbedder(HashingEmbedder):
    """Hashing vectors of another length, whose note rounds wait to be let through one
    by one (a slow local model, held still); queries pass at once."""

    def __init__(self, dimensions: int = 48) -> None:
        super().__init__(dimensions)
        self.gate = asyncio.Semaphore(0)
        self.texts = 0  # note chunks embedded
        self.down = False

    def let_through(self, rounds: int = 1) -> None:
        for _ in range(rounds):
            self.gate.release()

    @property
    def name(self) -> str:
        return f"gated:{self.dimensions}"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        await self.gate.acquire()
        if self.down:
            raise EmbeddingError("the service is down")
        self.texts += len(texts)
        return await super().embed(texts)

    async def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed(texts)


def write_notes(vault: Path) -> None:
    (vault / "ideas").mkdir(parents=True)
    for n in range(NOTES):
        (vault / "ideas" / f"note {n}.md").write_text(f"# Note {n}\nThe marker word{n} is here.\n")


async def chunks(store: Store) -> int:
    async with store.database.engine.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM chunks"))).scalar_one())


async def progress_reaches(store: Store, done: int) -> None:
    for _ in range(1000):
        found = await embedding_progress(store.database.engine)
        if found is None or found.done >= done:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the embedding did not reach {done} notes: {found}")


async def test_search_answers_by_keyword_while_a_new_embedder_works_in_the_background(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    vault = tmp_path / "vault"
    write_notes(vault)
    async with opened_store(vault, database_url, keyword_only=True):
        pass  # indexed without vectors (BRAINBOT_EMBEDDINGS=none)
    caplog.set_level(logging.INFO, logger="storage.index.backfill")
    embedder = GatedEmbedder()
    async with asyncio.timeout(20):  # the open never waits for the embedder
        opening = opened_store(vault, database_url, embedder)
        store = await opening.__aenter__()
    try:
        found = await store.search("word7")
        assert found.hits[0].path == "ideas/note 7.md"
        assert found.notes == (REEMBEDDING,)
        assert await embedding_progress(store.database.engine) == EmbeddingProgress(
            "gated:48", 0, NOTES
        )
        assert "re-embedding for gated:48: 120 notes of vault 1 in the background" in caplog.text

        embedder.let_through()  # the first round of 100
        await progress_reaches(store, 100)
        assert str(await embedding_progress(store.database.engine)) == (
            "re-embedding for gated:48: 100 of 120 notes"
        )
        assert "index: re-embedding for gated:48: 100 of 120 notes" in caplog.text
        # Notes already embedded rank by vector too; the rest by keyword.
        assert (await store.search("word3")).hits[0].path == "ideas/note 3.md"
        assert (await store.search("word110")).hits[0].path == "ideas/note 110.md"

        embedder.let_through()
        assert store.index.embedding is not None
        await asyncio.wait_for(store.index.embedding, 20)
        assert await embedding_progress(store.database.engine) is None
        assert await chunks(store) == NOTES
        assert "re-embedding for gated:48 done: 120 notes of vault 1" in caplog.text
        found = await store.search("marker word110")
        assert found.mode == "hybrid" and found.hits[0].path == "ideas/note 110.md"
        assert found.notes == ()
    finally:
        embedder.let_through(10)
        await opening.__aexit__(None, None, None)


async def test_a_stop_part_way_goes_on_where_it_was(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    write_notes(vault)
    async with opened_store(vault, database_url, HashingEmbedder(64)) as store:
        assert await chunks(store) == NOTES
    first = GatedEmbedder()
    # Another embedder's vectors go only when told to (`brainbot reindex --embed`).
    async with opened_store(vault, database_url, first, reembed=True) as store:
        first.let_through()
        await progress_reaches(store, 100)
    # Closed part-way: the background task stopped and its rounds stay done.
    second = GatedEmbedder()
    second.let_through(10)
    async with opened_store(vault, database_url, second) as store:
        assert await embedding_progress(store.database.engine) is None
        assert second.texts == NOTES - 100  # the rest only
        assert await chunks(store) == NOTES


async def test_reindex_embeds_each_note_once(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    write_notes(vault)
    async with opened_store(vault, database_url, HashingEmbedder(64)):
        pass
    embedder = GatedEmbedder()
    # `brainbot reindex --embed`: the open hands the notes to the background, then
    # the rebuild embeds every note itself; the background's work would be wasted.
    async with opened_store(vault, database_url, embedder, reembed=True) as store:
        embedder.let_through(10)
        assert (await store.reindex()).indexed == NOTES
        await asyncio.sleep(0.2)  # what a background task still running would do
        assert embedder.texts == NOTES
        assert await chunks(store) == NOTES


async def test_an_embedder_failing_part_way_pauses_until_the_next_sync(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    vault = tmp_path / "vault"
    write_notes(vault)
    async with opened_store(vault, database_url, keyword_only=True):
        pass
    caplog.set_level(logging.INFO, logger="storage.index.backfill")
    embedder = GatedEmbedder()
    async with opened_store(vault, database_url, embedder) as store:
        embedder.let_through()
        await progress_reaches(store, 100)
        embedder.down = True
        embedder.let_through()
        assert store.index.embedding is not None
        await asyncio.wait_for(store.index.embedding, 20)
        assert "re-embedding for gated:48 paused after 100 notes" in caplog.text
        assert (await store.search("word110")).hits[0].path == "ideas/note 110.md"

        embedder.down = False
        embedder.let_through()
        assert (await store.sync()).embedded == NOTES - 100  # few enough to embed at once
        assert await embedding_progress(store.database.engine) is None
