"""Why a search hit came up: which side of the hybrid search found it (the words, the
meaning, or both) and the passage it matched on, with the query's words marked."""

from __future__ import annotations

from storage.index.embeddings import HashingEmbedder
from storage.index.snippets import mark_words, matched_by
from tests.storage.index.index_support import note, opened_index

NOTES = [
    note("projects/budget.md", "Q3 plan. The budget call with Sarah: cut travel costs by a third."),
    note("ideas/tomatoes.md", "Tomatoes want a sunny garden wall and daily water."),
    note("people/sarah.md", "Sarah works in finance and owns the budget review."),
]


async def test_each_hit_says_which_side_found_it_and_marks_the_words(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        budget = await index.search("budget", limit=5)
        # "gardens" is no word of any note, and no note's word starts with it: only the
        # vectors (character trigrams here) find the garden note.
        gardens = await index.search("gardens", limit=5)
        both = await index.search("sunny garden", limit=5)
    by_path = {h.path: h for h in budget.hits}
    assert by_path["projects/budget.md"].matched in ("words", "both")
    assert "**budget**" in by_path["projects/budget.md"].passage
    assert "The **budget** call with Sarah" in by_path["projects/budget.md"].passage
    assert "**" not in by_path["projects/budget.md"].snippet  # the plain snippet stays plain
    garden = next(h for h in gardens.hits if h.path == "ideas/tomatoes.md")
    assert garden.matched == "meaning"
    assert garden.passage.startswith("Tomatoes want a sunny garden wall")
    assert "**" not in garden.passage  # no query word in it to mark
    assert both.hits[0].path == "ideas/tomatoes.md" and both.hits[0].matched == "both"
    assert both.hits[0].passage.startswith("Tomatoes want a **sunny** **garden** wall")


async def test_keyword_only_hits_are_found_by_words(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)
        results = await index.search("Sarah budget")
        listing = await index.search("category:people")
    assert results.mode == "keyword"
    assert {h.matched for h in results.hits} == {"words"}
    assert "**Sarah** works in finance and owns the **budget** review." in [
        h.passage for h in results.hits
    ]
    # A listing by filters matched no words: it says nothing about why.
    assert [(h.matched, h.passage) for h in listing.hits] == [("", "")]


def test_marking_follows_the_index_folding_and_prefixes() -> None:
    assert mark_words("Café au lait, CAFE noir", ["cafe"]) == "**Café** au lait, **CAFE** noir"
    assert mark_words("projection and project", [], prefixes=["proj"]) == (
        "**projection** and **project**"
    )
    assert mark_words("nothing here", ["budget"]) == "nothing here"


def test_matched_by_reads_the_two_rankings() -> None:
    assert matched_by([1, 2], [2, 3]) == {1: "words", 2: "both", 3: "meaning"}
    assert matched_by([], []) == {}


def test_no_mark_inside_a_wikilink_or_an_address() -> None:
    # A word in a link's target marked would break the link ("[[**Sarah** Kim]]"): the
    # whole link is marked instead, and an address is left as it is.
    assert mark_words("Lunch with [[Sarah Kim]] and Sarah", ["sarah"]) == (
        "Lunch with **[[Sarah Kim]]** and **Sarah**"
    )
    assert mark_words("See [[Budget Q3#Travel|the travel budget]]", ["budget"]) == (
        "See **[[Budget Q3#Travel|the travel budget]]**"
    )
    assert mark_words("[[Garden plan]] café", ["cafe"]) == "[[Garden plan]] **café**"
    assert mark_words("at https://example.org/budget/sarah today", ["budget", "today"]) == (
        "at https://example.org/budget/sarah **today**"
    )
    # A passage cut inside a link leaves the part of it that shows unmarked too.
    assert mark_words("…h Kim]] on the budget with [[Sarah K…", ["budget", "kim", "sarah"]) == (
        "…h Kim]] on the **budget** with [[Sarah K…"
    )


async def test_a_hit_passage_keeps_its_wikilinks_whole(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert([note("projects/lunch.md", "Lunch with [[Sarah Kim]] about money.")])
        (hit,) = (await index.search("sarah")).hits
    assert hit.passage == "Lunch with **[[Sarah Kim]]** about money."
