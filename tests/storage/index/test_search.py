"""Search over a real Postgres: BM25 ranking, prefixes, any language, filters,
filtered vector search (pgvector 0.6's and 0.8's), and hybrid fusion."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import text

from storage.index import bulk, search
from storage.index.embeddings import HashingEmbedder
from storage.index.index import KEYWORD_ONLY
from storage.index.search import _VECTOR, Filters, fuse, vector_literal, vector_ranking
from tests.storage.index.index_support import note, opened_index


async def test_a_rare_word_outweighs_a_common_one(database_url: str) -> None:
    common = [note(f"ideas/m{i}.md", "meeting meeting meeting about things") for i in range(20)]
    other = [note(f"ideas/o{i}.md", "garden notes about things") for i in range(30)]
    rare = note("ideas/airship.md", "the zeppelin flight plan, one meeting")
    async with opened_index(database_url) as index:
        await index.upsert([*common, *other, rare])
        results = await index.search("meeting zeppelin", limit=5)
        about = await index.search("about zeppelin", limit=5)
    assert results.hits[0].path == "ideas/airship.md"
    assert len(results.hits) == 5  # words are ORed: notes with only "meeting" still count
    # "about" is in most notes: it is skipped while a rarer word is there.
    assert [h.path for h in about.hits] == ["ideas/airship.md"]


async def test_natural_language_question_finds_the_note(database_url: str) -> None:
    notes = [
        note("projects/budget.md", "Budget call with Sarah on Tuesday: cut travel costs."),
        note("people/sarah.md", "Sarah works in finance."),
        note("ideas/tea.md", "Green tea ceremony with the whole team."),
    ]
    async with opened_index(database_url) as index:
        await index.upsert(notes)
        results = await index.search("notes about the budget call with Sarah")
    assert results.hits[0].path == "projects/budget.md"
    assert "Budget call with Sarah" in results.hits[0].snippet


async def test_keyword_only_without_embedder_and_it_says_so(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert([note("projects/site.md", "Relaunch the project website")])
        results = await index.search("proj")
    assert results.mode == "keyword"
    assert results.notes == (KEYWORD_ONLY,)
    assert [h.path for h in results.hits] == ["projects/site.md"]
    assert results.hits[0].snippet.startswith("Relaunch the project")


async def test_prefix_of_the_last_word_and_of_unknown_words(database_url: str) -> None:
    notes = [
        note("projects/a.md", "project kickoff"),
        note("projects/b.md", "projection screen"),
        note("projects/c.md", "garden"),
    ]
    async with opened_index(database_url) as index:
        await index.upsert(notes)
        typed = await index.search("garden proj")
        unknown = await index.search("projec kickoff")
    assert {h.path for h in typed.hits} == {"projects/a.md", "projects/b.md", "projects/c.md"}
    assert unknown.hits[0].path == "projects/a.md"


async def test_unicode_accents_and_cyrillic(database_url: str) -> None:
    notes = [
        note("ideas/cafe.md", "Meet at the Café de Flore", title="Café"),
        note("people/ivan.md", "Встреча Ивана, пятница", title="Иван"),
        note("ideas/other.md", "Nothing to see"),
    ]
    async with opened_index(database_url) as index:
        await index.upsert(notes)
        assert [h.path for h in (await index.search("cafe")).hits] == ["ideas/cafe.md"]
        assert [h.path for h in (await index.search("CAFÉ flore")).hits] == ["ideas/cafe.md"]
        hits = (await index.search("встреча")).hits
    assert [h.path for h in hits] == ["people/ivan.md"]
    assert hits[0].title == "Иван"


async def test_quoted_phrase_and_exclusion_filter(database_url: str) -> None:
    notes = [
        note("ideas/a.md", "the budget call went well"),
        note("ideas/b.md", "call about the budget, draft"),
        note("ideas/c.md", "budget call draft version"),
    ]
    async with opened_index(database_url) as index:
        await index.upsert(notes)
        phrase = await index.search('"budget call"')
        excluded = await index.search('"budget call" -draft')
    assert {h.path for h in phrase.hits} == {"ideas/a.md", "ideas/c.md"}
    assert [h.path for h in excluded.hits] == ["ideas/a.md"]


async def test_filters_by_category_tags_status_and_dates(database_url: str) -> None:
    notes = [
        note(
            "projects/old.md",
            "garden plan",
            status="active",
            tags=["Home"],
            updated=datetime(2026, 1, 5, tzinfo=UTC),
        ),
        note(
            "projects/new.md",
            "garden plan",
            status="done",
            tags=["#home", "x"],
            updated=datetime(2026, 11, 20, 15, 0, tzinfo=UTC),
        ),
        note("ideas/garden.md", "garden plan", tags=["home"], updated="2026-06-01"),
    ]
    async with opened_index(database_url) as index:
        await index.upsert(notes)

        async def paths(**filters: object) -> set[str]:
            return {h.path for h in (await index.search("garden", **filters)).hits}  # type: ignore[arg-type]

        assert await paths(category="projects") == {"projects/old.md", "projects/new.md"}
        assert await paths(status="ACTIVE") == {"projects/old.md"}
        assert await paths(tags=["HOME", "x"]) == {"projects/new.md"}
        assert await paths(modified_after=date(2026, 6, 1)) == {
            "projects/new.md",
            "ideas/garden.md",
        }
        assert await paths(modified_before=date(2026, 6, 1)) == {
            "projects/old.md",
            "ideas/garden.md",
        }
        assert await paths(
            modified_after=date(2026, 11, 20), modified_before=date(2026, 11, 20)
        ) == {"projects/new.md"}


# Whether the server's pgvector scans HNSW iteratively: 0.8 or later, as this database's
# extension says (asked the server, whichever version it is).
_ITERATIVE = (
    "SELECT string_to_array(extversion, '.')::int[] >= '{0,8}' FROM pg_extension"
    " WHERE extname = 'vector'"
)


async def test_filtered_vector_search_still_returns_limit_rows(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1,000 notes, 20 of them "admin": a selective filter that pgvector 0.6's HNSW,
    # visiting only ef_search candidates before filtering, mostly misses. The vault
    # counts as large here, so the search goes through HNSW as in a large vault.
    monkeypatch.setattr(search, "SMALL_VAULT_VALUES", 0)
    notes = [
        note(f"{'admin' if i % 50 == 0 else 'ideas'}/n{i}.md", f"note {i} about topic {i % 7}")
        for i in range(1000)
    ]
    admin = Filters(category="admin")
    async with opened_index(database_url, HashingEmbedder(32)) as index:
        await bulk.load(index, notes)
        vector = (await HashingEmbedder(32).embed(["unrelated words"]))[0]
        async with index.database.engine.begin() as conn:
            # Make the planner walk the HNSW index, as it does on large tables.
            await conn.execute(text("SET LOCAL enable_sort = off"))
            await conn.execute(text("SET LOCAL enable_bitmapscan = off"))
            await conn.execute(text("SELECT set_config('hnsw.ef_search', '300', true)"))
            conditions, params = admin.sql()
            hnsw_only = await conn.execute(
                text(
                    _VECTOR.format(
                        join="JOIN entries e ON e.id = c.entry_id",
                        where="c.vault_id = 1 AND " + conditions[0],
                        order="c.embedding <=> CAST(:vector AS vector)",
                    )
                ),
                {**params, "vector": vector_literal(vector), "candidates": 60, "limit": 15},
            )
            assert len(list(hnsw_only)) < 15  # the problem is real
            ranked = await vector_ranking(conn, 1, vector, admin, 15)
            # A pgvector that scans iteratively was told to: its HNSW walk itself now
            # finds them (older ones rely on the widening and the exact fallback).
            iterative = await conn.scalar(text(_ITERATIVE))
            setting = await conn.scalar(text("SELECT current_setting('hnsw.iterative_scan', true)"))
            assert setting == ("relaxed_order" if iterative else None)
        assert len(ranked) == 15
        results = await index.search("unrelated words", category="admin", limit=15)
    assert results.mode == "hybrid"
    assert len(results.hits) == 15
    assert all(h.category == "admin" for h in results.hits)


async def test_hybrid_fuses_both_rankings(database_url: str) -> None:
    notes = [
        note("ideas/exact.md", "quarterly roadmap review"),
        note("ideas/morph.md", "roadmaps reviewed quarterly by the board"),
        note("ideas/noise.md", "lunch menu"),
    ]
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(notes)
        results = await index.search("quarterly roadmap review", limit=3)
    assert results.mode == "hybrid" and results.notes == ()
    assert [h.path for h in results.hits][:2] == ["ideas/exact.md", "ideas/morph.md"]
    assert results.hits[0].score > results.hits[1].score > results.hits[2].score


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = fuse([(1, 3.0), (2, 2.9), (3, 2.8)], [(3, 0.9), (4, 0.89), (1, 0.88)])
    assert {entry_id for entry_id, _ in fused[:2]} == {1, 3}  # found by both sides
    assert {entry_id for entry_id, _ in fused} == {1, 2, 3, 4}
    weighted = fuse([(1, 1.0)], [(2, 1.0)], keyword_weight=2.0, sure_keyword_weight=0.0)
    assert weighted[0][0] == 1
