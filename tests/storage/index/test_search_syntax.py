"""The search syntax against a real index: each operator and field restricts both
the keyword and the vector side; malformed syntax finds what its plain words find;
an empty filtered search says which filter no note passes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings

from storage.entry import SearchResults
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from storage.index.tokens import tokenize
from tests.storage.index.index_support import note, opened_index
from tests.storage.index.test_query_syntax import MALFORMED_FORMS, _only_malformed, malformed_text


def _day(month: int, day: int) -> datetime:
    return datetime(2026, month, day, 12, tzinfo=UTC)


NOTES = [
    note("ideas/tea.md", "Green tea in the morning.", tags=["drinks"], updated=_day(10, 5)),
    note(
        "ideas/coffee.md", "Coffee in the morning, strong.", tags=["drinks"], updated=_day(11, 10)
    ),
    note(
        "projects/garden.md",
        "Plant tomatoes and basil. Draft.",
        title="Garden plan",
        tags=["garden"],
        status="active",
        updated=_day(11, 15),
    ),
    note(
        "projects/budget.md",
        "Budget call with Sarah: cut travel costs.",
        title="Q3 budget",
        status="done",
        updated=_day(9, 1),
    ),
    note("people/sarah.md", "Sarah works in finance. Salt and pepper.", updated=_day(11, 20)),
    note("admin/fee.md", 'The fee is $40, a "special" price.', updated=_day(8, 1)),
]


def paths(results: SearchResults) -> list[str]:
    return [h.path for h in results.hits]


async def test_a_lone_quote_or_a_quoted_symbol_finds_what_the_words_find(
    database_url: str,
) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        assert paths(await index.search('fee "$"')) == paths(await index.search("fee"))
        assert "admin/fee.md" in paths(await index.search('what is the fee"'))
        assert "admin/fee.md" in paths(await index.search('"fee $40'))


async def test_symbols_alone_find_nothing_by_keyword(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)
        for text in ('"', '"$"', "$", "-", "("):
            found = await index.search(text)
            assert found.hits == () and found.empty is None, text


async def test_and_or_not_restrict_both_sides(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        # Without syntax, the vector side brings every note along.
        assert len(paths(await index.search("morning strong"))) > 2
        assert paths(await index.search("morning AND strong")) == ["ideas/coffee.md"]
        assert set(paths(await index.search("tea OR coffee"))) == {
            "ideas/tea.md",
            "ideas/coffee.md",
        }
        # An exclusion alone leaves the words soft: other notes may still come, never it.
        for query in ("morning -coffee", "morning NOT coffee", 'morning -"morning, strong"'):
            found = paths(await index.search(query))
            assert found[0] == "ideas/tea.md" and "ideas/coffee.md" not in found, query
        lowercase = await index.search("salt and pepper")
        assert lowercase.hits[0].path == "people/sarah.md"
        assert lowercase.empty is None


async def test_field_filters_and_dates(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        assert paths(await index.search("morning tag:drinks category:ideas")) != []
        assert set(paths(await index.search("morning tag:#Drinks"))) == {
            "ideas/tea.md",
            "ideas/coffee.md",
        }
        assert paths(await index.search("plan status:active")) == ["projects/garden.md"]
        assert paths(await index.search("costs title:q3")) == ["projects/budget.md"]
        assert paths(await index.search('sarah title:"q3 budget"')) == ["projects/budget.md"]
        november = paths(await index.search("morning after:2026-11-01"))
        assert november[0] == "ideas/coffee.md"
        assert set(november) <= {"ideas/coffee.md", "projects/garden.md", "people/sarah.md"}
        # A month as the upper bound includes its last day.
        early = paths(await index.search("morning before:2026-10"))
        assert early[0] == "ideas/tea.md"
        assert set(early) <= {"ideas/tea.md", "projects/budget.md", "admin/fee.md"}
        # The last day kept is a bound like any other (an OverflowError before).
        assert "ideas/tea.md" in paths(await index.search("morning before:9999-12-31"))
        assert "ideas/tea.md" in paths(await index.search("morning after:0001-01-01"))
        # The tool's own filter arguments and the query's narrow each other.
        assert paths(await index.search("morning tag:drinks", category="projects")) == []


async def test_filters_alone_list_notes_newest_first(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        recent = await index.search("after:2026-11")
        assert recent.mode == "filter"
        assert paths(recent) == ["people/sarah.md", "projects/garden.md", "ideas/coffee.md"]
        assert paths(await index.search("tag:drinks")) == ["ideas/coffee.md", "ideas/tea.md"]
        assert paths(await index.search("category:projects -draft")) == ["projects/budget.md"]
        assert recent.hits[0].snippet.startswith("Sarah works")


async def test_an_empty_filtered_search_says_which_filter(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)
        nothing = await index.search("tag:nothing")
        assert nothing.hits == ()
        assert nothing.empty == "No notes tagged #nothing."
        words = await index.search("morning tag:nothing")
        assert words.empty == "No notes tagged #nothing."
        both = await index.search("tag:garden category:ideas")
        assert both.empty == "No matching notes in category ideas, tagged #garden."
        early = await index.search("tomatoes before:2026-01-01")
        assert early.empty == "No notes changed on or before 2026-01-01."
        assert (await index.search("zeppelin")).empty is None


async def test_each_malformed_form_finds_what_its_words_find(database_url: str) -> None:
    async with opened_index(database_url) as index:  # keyword only: BM25 is the yardstick
        await index.upsert(NOTES)
        for form in MALFORMED_FORMS:
            found, plain = await _same_hits(index, form)
            assert found == plain, form
            longer = f"{form} morning fee"
            if _only_malformed(longer):  # "budget AND morning" would be valid syntax
                found, plain = await _same_hits(index, longer)
                assert found == plain and found, longer


async def _same_hits(index: Index, text: str) -> tuple[list[str], list[str]]:
    words = " ".join(dict.fromkeys(tokenize(text)))
    return paths(await index.search(text)), paths(await index.search(words))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(malformed_text().filter(_only_malformed))
def test_malformed_syntax_never_finds_less_than_its_words(database_url: str, text: str) -> None:
    async def check() -> None:
        async with opened_index(database_url) as index:
            await index.upsert(NOTES)  # indexed once: unchanged notes are skipped after
            found, plain = await _same_hits(index, text)
        assert found == plain, text

    asyncio.run(check())
