"""Many vaults in one database: each index sees only its own vault's notes, in every
reading (search by keyword and by vector, listings, names, backlinks, digests), a
rebuild of one leaves the others alone, and BM25 counts words per vault."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.entry import Entry
from storage.index import bulk, lookups
from storage.index.digest_queries import DigestQuery, digest_facts
from storage.index.embeddings import Embedder, HashingEmbedder
from storage.index.index import Index
from storage.index.indexed_note import prepare
from storage.index.query import parse_query
from storage.index.search import Filters, keyword_ranking, vector_ranking
from storage.store import Store
from tests.storage.index.index_support import connected, note
from tests.storage.vault.vault_support import CATEGORIES, LIMITS

ALICE = (
    note(
        "projects/launch.md",
        "Launch the zeppelin website; the numbers are in [[Budget]].",
        title="Launch",
        status="active",
        tags=["work"],
        next_action="Call the hangar",
    ),
    note("projects/budget.md", "Budget for the zeppelin hangar.", title="Budget"),
    note("inbox/thought.md", "A passing thought about airships."),
)
BOB = (
    note(
        "projects/garden.md",
        "Plant tomatoes; the seeds are in [[Budget]].",
        title="Garden",
        status="active",
        tags=["work"],
    ),
    note("projects/budget.md", "Budget for seeds and compost.", title="Budget"),  # Alice's path
    note("ideas/kite.md", "A red kite for the windy days."),
)


@asynccontextmanager
async def two_vaults(
    database_url: str, embedder: Embedder | None = None
) -> AsyncIterator[tuple[Index, Index]]:
    """The indexes of vaults 1 (Alice) and 2 (Bob) in one database, with their notes."""
    async with connected(database_url) as database:
        alice = await Index.open(database, embedder, vault_id=1)
        bob = await Index.open(database, embedder, vault_id=2)
        await alice.upsert(ALICE)
        await bob.upsert(BOB)
        yield alice, bob


def _paths(notes: tuple[Entry, ...]) -> set[str]:
    return {n.path for n in notes}


async def test_search_finds_only_the_vaults_own_notes(database_url: str) -> None:
    async with two_vaults(database_url, HashingEmbedder(64)) as (alice, bob):
        for query in ("zeppelin hangar", "zepp", "airships"):
            hybrid = await bob.search(query)
            assert hybrid.mode == "hybrid"
            # The vector side ranks Bob's nearest notes; none of Alice's is among them.
            assert {h.path for h in hybrid.hits} <= _paths(BOB)
            assert all("zeppelin" not in h.snippet for h in hybrid.hits)
        found = await alice.search("zeppelin hangar")
        assert {h.path for h in found.hits[:2]} == {"projects/launch.md", "projects/budget.md"}
        assert {h.path for h in found.hits} <= _paths(ALICE)
        # Keyword alone, on the same tables: nothing of Alice's reaches Bob.
        keyword_bob = await Index.open(bob.database, None, vault_id=2)
        assert (await keyword_bob.search("zeppelin")).hits == ()
        assert (await keyword_bob.search("zepp")).hits == ()
        assert [h.path for h in (await keyword_bob.search("tomatoes")).hits] == [
            "projects/garden.md"
        ]
        filtered = await bob.search("zeppelin budget", category="projects", tags=["work"])
        assert [h.path for h in filtered.hits] == ["projects/garden.md"]


async def test_rankings_and_hits_hold_only_the_vaults_own_notes(database_url: str) -> None:
    query = parse_query("budget zeppelin hangar seeds")
    async with two_vaults(database_url, HashingEmbedder(64)) as (alice, bob):
        vector = (await bob.embed_queries(["budget for the zeppelin hangar"]))[0]
        async with bob.database.engine.connect() as conn:
            rows = await conn.execute(text("SELECT id, vault_id FROM entries"))
            vault_of = {r.id: r.vault_id for r in rows}
            for index in (alice, bob):
                ranked = (await keyword_ranking(conn, index.vault_id, query, Filters(), 30)).hits
                near = await vector_ranking(conn, index.vault_id, vector, Filters(), 30)
                assert {vault_of[i] for i, _ in ranked} == {index.vault_id}
                assert {vault_of[i] for i, _, _ in near} == {index.vault_id}
            alices = [(i, 1.0) for i, vault in vault_of.items() if vault == 1]
            assert await lookups.hits(conn, 2, alices, query, {}, {}) == []


async def test_listings_names_and_links_are_per_vault(database_url: str) -> None:
    async with two_vaults(database_url) as (alice, bob):
        assert {e.path for e in await alice.list_entries()} == _paths(ALICE)
        assert {e.path for e in await bob.list_entries()} == _paths(BOB)
        assert [e.path for e in await bob.list_entries(category="inbox")] == []
        assert [e.path for e in await bob.list_entries(status="active", tag="work")] == [
            "projects/garden.md"
        ]
        assert await alice.count_entries(category="projects") == 2
        assert await bob.count_entries(category="inbox") == 0
        assert await alice.count() == await bob.count() == 3
        assert set(await bob.paths()) == _paths(BOB)

        # The same path in two vaults is two notes.
        alice_budget = await alice.get("projects/budget.md")
        bob_budget = await bob.get("projects/budget.md")
        assert alice_budget is not None and "zeppelin" in alice_budget.body
        assert bob_budget is not None and "seeds" in bob_budget.body
        hashes = await bob.content_hashes(["projects/budget.md", "inbox/thought.md"])
        assert hashes == {"projects/budget.md": BOB[1].content_hash}
        assert await bob.get("inbox/thought.md") is None

        assert await bob.find("launch") == []
        assert [e.body for e in await bob.find("budget")] == [BOB[1].body]
        assert [e.path for e in await alice.find("launch")] == ["projects/launch.md"]

        assert [h.path for h in await alice.backlinks("projects/budget.md")] == [
            "projects/launch.md"
        ]
        assert [h.path for h in await bob.backlinks("projects/budget.md")] == ["projects/garden.md"]


async def test_sync_state_is_per_vault(database_url: str) -> None:
    async with two_vaults(database_url) as (alice, bob):
        await alice.mark_synced("a1", ["inbox/thought.md"])
        assert await bob.last_commit() is None
        assert await bob.recheck_paths() == []
        assert await bob.advance("b1", parent=None)
        assert not await alice.advance("a2", parent=None)  # Alice is at a1
        assert (await alice.last_commit(), await bob.last_commit()) == ("a1", "b1")
        assert await alice.recheck_paths() == ["inbox/thought.md"]
        # Removing Bob's note at a path Alice also has leaves Alice's, and her counts.
        alices_terms = await _terms(alice)
        assert await bob.remove(["projects/budget.md", "inbox/thought.md"]) == 1
        assert await alice.get("projects/budget.md") is not None
        assert await _terms(alice) == alices_terms
        async with alice.database.engine.connect() as conn:
            counts = await conn.execute(
                text("SELECT vault_id, doc_count FROM index_meta ORDER BY vault_id")
            )
            assert [tuple(r) for r in counts] == [(1, 3), (2, 2)]


async def test_a_commit_another_process_already_indexed_counts_as_advanced(
    database_url: str,
) -> None:
    async with two_vaults(database_url) as (alice, _):
        await alice.mark_synced("a1")
        await alice.mark_synced("a2")  # another process's sync reached our commit first
        assert await alice.advance("a2", parent="a1")
        assert not await alice.advance("a3", parent="a1")  # a2 is not indexed by us
        assert await alice.last_commit() == "a2"


async def _terms(index: Index) -> dict[str, int]:
    async with index.database.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT term, df FROM terms WHERE vault_id = :vault"), {"vault": index.vault_id}
        )
        return {r.term: r.df for r in rows}


async def test_digest_facts_are_per_vault(database_url: str) -> None:
    now = datetime.now(UTC)
    query = DigestQuery(
        start=now - timedelta(days=1),
        end=now + timedelta(days=1),
        due_by=now.date(),
        stuck_before=now + timedelta(days=1),
        closed=("done",),
        categories=CATEGORIES,
    )
    async with two_vaults(database_url) as (alice, bob):
        engine = alice.database.engine
        alices = await digest_facts(engine, query, vault_id=alice.vault_id)
        bobs = await digest_facts(engine, query, vault_id=bob.vault_id)
    # Projects with a next action come first.
    assert [r.path for r in alices.open_projects.rows] == [
        "projects/launch.md",
        "projects/budget.md",
    ]
    assert {r.path for r in bobs.open_projects.rows} == {"projects/garden.md", "projects/budget.md"}
    assert (alices.inbox, bobs.inbox) == (1, 0)
    assert {r.path for r in bobs.stuck.rows} == {"projects/garden.md", "projects/budget.md"}
    assert {r.path for r in alices.stuck.rows} == {"projects/launch.md", "projects/budget.md"}


async def test_rebuilding_one_vault_leaves_the_others(database_url: str) -> None:
    async with two_vaults(database_url, HashingEmbedder(32)) as (alice, bob):
        async with bob.database.engine.connect() as conn:
            before = (await conn.execute(text("SELECT * FROM index_meta WHERE vault_id = 2"))).one()
        fresh = note("ideas/fresh.md", "A fresh start with a zeppelin.")
        await bulk.load(alice, [fresh], replace_all=True)
        assert set(await alice.paths()) == {"ideas/fresh.md"}
        assert set(await bob.paths()) == _paths(BOB)
        assert [h.path for h in (await bob.search("tomatoes")).hits][:1] == ["projects/garden.md"]
        async with bob.database.engine.connect() as conn:
            after = (await conn.execute(text("SELECT * FROM index_meta WHERE vault_id = 2"))).one()
            chunks = await conn.execute(
                text("SELECT vault_id, count(*) FROM chunks GROUP BY vault_id ORDER BY vault_id")
            )
            assert [tuple(r) for r in chunks] == [(1, 1), (2, 3)]
            terms = await conn.scalar(
                text("SELECT count(*) FROM terms WHERE vault_id = 2 AND term = 'tomatoes'")
            )
            assert terms == 1
            alices = await conn.execute(text("SELECT term, df FROM terms WHERE vault_id = 1"))
            assert dict(alices.all()) == dict.fromkeys(prepare(fresh).terms, 1)
        assert after == before


async def test_bm25_counts_words_per_vault(database_url: str) -> None:
    # "meeting" is in every one of Alice's notes but in one of Bob's ten: for Bob it is
    # as rare as "garden". Counted over both vaults it would be in most notes, and the
    # ranking would drop it (see COMMON_SHARE).
    alice_notes = [note(f"ideas/m{i}.md", f"meeting number {i}") for i in range(30)]
    # And "filler", in eight of Bob's ten notes, is common for Bob alone.
    bob_notes = [
        note("ideas/one.md", "meeting plans", title="One"),
        note("ideas/two.md", "garden plans", title="Two"),
        *(note(f"ideas/f{i}.md", f"filler text {i}") for i in range(8)),
    ]
    async with connected(database_url) as database:
        alice = await Index.open(database, None, vault_id=1)
        bob = await Index.open(database, None, vault_id=2)
        await bulk.load(alice, alice_notes)
        await bulk.load(bob, bob_notes)
        hits = (await bob.search("meeting garden")).hits
        assert {h.path for h in hits} == {"ideas/one.md", "ideas/two.md"}
        assert hits[0].score == pytest.approx(hits[1].score)
        assert [h.path for h in (await bob.search("filler garden")).hits] == ["ideas/two.md"]
        # Alice's "meeting" is everywhere: a query with a rarer word skips it.
        assert [h.path for h in (await alice.search("meeting 7")).hits] == ["ideas/m7.md"]


async def test_prefixes_expand_to_the_vaults_own_words(database_url: str) -> None:
    # Alice's many common words beginning "proj" would take every expansion of Bob's
    # "proj" if expansions were chosen over both vaults.
    words = " ".join(f"proj{letter}x" for letter in "abcdefghij")
    alice_notes = [note(f"ideas/p{i}.md", words) for i in range(5)]
    async with connected(database_url) as database:
        alice = await Index.open(database, None, vault_id=1)
        bob = await Index.open(database, None, vault_id=2)
        await alice.upsert(alice_notes)
        await bob.upsert([note("ideas/screen.md", "The projector screen")])
        assert [h.path for h in (await bob.search("proj")).hits] == ["ideas/screen.md"]


async def test_stores_of_two_vaults_share_one_database(tmp_path: Path, database_url: str) -> None:
    async with connected(database_url) as database:

        async def open_store(name: str, vault_id: int) -> Store:
            return await Store.open(
                vault_dir=tmp_path / name,
                categories=CATEGORIES,
                database=database,
                embedder=HashingEmbedder(64),
                vault_id=vault_id,
                **LIMITS,
            )

        alice, bob = await open_store("alice", 1), await open_store("bob", 2)
        kite = await alice.create("ideas", "Kite", "A red kite over the dunes.")
        boat = await bob.create("ideas", "Boat", "A small sailing boat.")
        (tmp_path / "bob" / "ideas" / "hand.md").write_text("Written by hand: a kite string.\n")
        await bob.sync()
        assert {h.path for h in (await bob.search("kite")).hits} <= {boat.path, "ideas/hand.md"}
        assert (await bob.search("kite")).hits[0].path == "ideas/hand.md"
        assert [e.path for e in await alice.list()] == [kite.path]
        assert await bob.count() == 2
        assert bob.index.vault_id == 2
        # Opening again syncs each vault from its own commit.
        await bob.close()
        again = await open_store("bob", 2)
        assert await again.index.last_commit() == await bob.index.last_commit()
        assert set(await again.index.paths()) == {boat.path, "ideas/hand.md"}
        await again.close()
        await alice.close()
