"""What vaults share: the vector column and its HNSW index, and the embedder behind
them. A small vault is searched exactly among many other vaults' chunks; a new
embedder replaces the vectors of every vault; writers of different vaults do not
wait for each other."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import text

from storage.db.connection import Database
from storage.errors import EmbedderChanged
from storage.index import bulk, indexer, search
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from storage.index.search import Filters, vector_ranking
from tests.storage.index.index_support import connected, note


async def _vault_ids(database: Database, ids: list[int]) -> set[int]:
    async with database.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT DISTINCT vault_id FROM entries WHERE id = ANY(CAST(:ids AS int[]))"),
            {"ids": ids},
        )
        return set(rows.scalars())


async def _until_a_writer_waits(database: Database, within: float = 30.0) -> None:
    """Until some transaction waits for an index lock (seen in Postgres' lock table)."""
    deadline = time.monotonic() + within
    async with database.engine.connect() as conn:
        while not await conn.scalar(
            text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        ):
            assert time.monotonic() < deadline, "no writer waited"
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("small_vault_values", [search.SMALL_VAULT_VALUES, 0])
async def test_a_small_vault_gets_its_nearest_notes_among_many_others(
    database_url: str, monkeypatch: pytest.MonkeyPatch, small_vault_values: int
) -> None:
    # Bob's 20 notes among Alice's 4,000: an HNSW scan over everyone's chunks, even at
    # its widest (ef_search 1,000), filtered afterwards, finds few of Bob's. Exact (the
    # small vault), or HNSW with the exact fallback (as if it were large), both give
    # him `limit` notes.
    monkeypatch.setattr(search, "SMALL_VAULT_VALUES", small_vault_values)
    embedder = HashingEmbedder(32)
    async with connected(database_url) as database:
        alice = await Index.open(database, embedder, vault_id=1)
        bob = await Index.open(database, embedder, vault_id=2)
        await bulk.load(
            alice, [note(f"ideas/a{i}.md", f"topic {i % 7} note {i}") for i in range(4000)]
        )
        await bob.upsert(
            [
                note(f"{'admin' if i % 2 else 'ideas'}/b{i}.md", f"topic {i % 7} b {i}")
                for i in range(20)
            ]
        )
        vector = (await embedder.embed(["topic 3"]))[0]
        async with database.engine.begin() as conn:
            # As on a large table: the planner walks the HNSW index.
            await conn.execute(text("SET LOCAL enable_sort = off"))
            await conn.execute(text("SET LOCAL enable_bitmapscan = off"))
            anyone = await vector_ranking(conn, 2, vector, Filters(), 15)
            admin = await vector_ranking(conn, 2, vector, Filters(category="admin"), 8)
        assert len(anyone) == 15 and await _vault_ids(database, [r[0] for r in anyone]) == {2}
        assert len(admin) == 8 and await _vault_ids(database, [r[0] for r in admin]) == {2}
        results = await bob.search("topic 3", limit=15)
    assert results.mode == "hybrid" and len(results.hits) == 15
    assert all(h.path.split("/")[1].startswith("b") for h in results.hits)


async def test_a_new_embedder_replaces_the_vectors_of_every_vault(database_url: str) -> None:
    async with connected(database_url) as database:
        alice = await Index.open(database, HashingEmbedder(32), vault_id=1)
        await alice.upsert([note("ideas/kite.md", "A red kite.")])
        # Bob has no vectors, Alice has: a new embedder would drop hers, so it is refused.
        with pytest.raises(EmbedderChanged, match="vectors of 1 notes from hashing:32"):
            await Index.open(database, HashingEmbedder(48), vault_id=2)
        bob = await Index.open(database, HashingEmbedder(48), vault_id=2, reembed=True)
        assert not bob.needs_embedding  # Bob had nothing to embed
        async with database.engine.connect() as conn:
            assert await conn.scalar(text("SELECT count(*) FROM chunks")) == 0
            embedders = await conn.execute(text("SELECT DISTINCT embedder FROM index_meta"))
            assert list(embedders.scalars()) == ["hashing:48"]
        # Alice's notes wait for her index to embed them again, with the new embedder.
        alice = await Index.open(database, HashingEmbedder(48), vault_id=1)
        assert alice.needs_embedding
        assert await bulk.embed_pending(alice) == 1
        assert (await alice.search("red kite")).hits[0].path == "ideas/kite.md"
        async with database.engine.connect() as conn:
            dims = await conn.execute(text("SELECT DISTINCT vector_dims(embedding) FROM chunks"))
            assert list(dims.scalars()) == [48]
        # A vault opened later starts with the embedder the others use.
        await Index.open(database, HashingEmbedder(48), vault_id=3)
        async with database.engine.connect() as conn:
            third = await conn.scalar(text("SELECT embedder FROM index_meta WHERE vault_id = 3"))
            assert third == "hashing:48"


async def test_a_keyword_only_rebuild_drops_no_other_vaults_vectors(database_url: str) -> None:
    async with connected(database_url) as database:
        alice = await Index.open(database, HashingEmbedder(32), vault_id=1)
        await alice.upsert([note("ideas/kite.md", "A red kite.")])
        bob = await Index.open(database, None, vault_id=2)
        await bulk.load(bob, [note("ideas/boat.md", "A boat.")], replace_all=True)  # Bob had none
        assert await bob.count() == 1
        keyword_alice = await Index.open(database, None, vault_id=1)
        with pytest.raises(EmbedderChanged):  # her own vectors would go
            await bulk.load(keyword_alice, [], replace_all=True)
        async with database.engine.connect() as conn:
            assert await conn.scalar(text("SELECT count(*) FROM chunks")) == 1


async def test_writers_of_different_vaults_do_not_wait_for_each_other(database_url: str) -> None:
    async with connected(database_url) as database:
        alice = await Index.open(database, None, vault_id=1)
        bob = await Index.open(database, None, vault_id=2)
        async with database.engine.begin() as conn:
            await indexer.lock(conn, alice.vault_id)  # a long write of Alice's
            await asyncio.wait_for(bob.upsert([note("ideas/boat.md", "A boat.")]), 30)
            waiting = asyncio.create_task(alice.upsert([note("ideas/kite.md", "A kite.")]))
            await _until_a_writer_waits(database)
            assert not waiting.done()  # Alice's second writer waits for her first
        await waiting
        assert await alice.count() == await bob.count() == 1
