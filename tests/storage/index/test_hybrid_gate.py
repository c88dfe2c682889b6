"""Hybrid search's gate over a real Postgres, as a searcher sees the first hit: the
keywords' first note stays first when it holds most of the question's words and the
vectors are not sure; the vectors lift their answer when that first note holds few
of the words, or when their first note leads by a clear cosine margin
(storage.index.search, chosen by bench/fusion.py)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from storage.index.embeddings import Embedder
from tests.storage.index.index_support import note, opened_index

_NEAR = re.compile(r"near(\d{3})")


class Nearness:
    """A stand-in for a model whose answers we set: a text holding `nearNNN` lies at
    cosine 0.NNN from any text without one (the query)."""

    name = "nearness"
    dimensions = 3

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = []
        for text in texts:
            found = _NEAR.search(text)
            cosine = int(found[1]) / 1000 if found else 1.0
            vectors.append([cosine, math.sqrt(1 - cosine * cosine), 0.0])
        return vectors


FILLER = [note(f"ideas/filler{i}.md", f"lorem ipsum dolor {i} near500") for i in range(8)]


async def first_hit(database_url: str, notes: Sequence[object], query: str) -> str:
    embedder: Embedder = Nearness()
    async with opened_index(database_url, embedder) as index:
        await index.upsert([*FILLER, *notes])  # type: ignore[list-item]
        results = await index.search(query, limit=5)
    assert results.mode == "hybrid"
    return results.hits[0].path


async def test_a_keyword_first_note_holding_few_of_the_words_gives_way(
    database_url: str,
) -> None:
    """The held-out failure (tldr-linux: "enable a service so it starts at boot"):
    the keywords' first note stood out by two of the question's words, the note the
    vectors put first (by a hair) also matched one; the keywords kept it first."""
    notes = [
        note("ideas/loud.md", "alpha beta alpha beta near897"),
        note("ideas/answer.md", "gamma near900"),
    ]
    assert await first_hit(database_url, notes, "alpha beta gamma delta") == "ideas/answer.md"


async def test_a_keyword_first_note_holding_every_word_stays_first_in_a_flat_head(
    database_url: str,
) -> None:
    """Six notes hold both words, their BM25 scores close: the one that holds them
    best stays first although the vectors slightly prefer the third."""
    notes = [
        note("ideas/k1.md", "alpha beta near897"),
        note("ideas/k2.md", "alpha beta one near890"),
        note("ideas/k3.md", "alpha beta one two near900"),
        note("ideas/k4.md", "alpha beta one two three near889"),
        note("ideas/k5.md", "alpha beta one two three four near888"),
        note("ideas/k6.md", "alpha beta one two three four five near887"),
    ]
    assert await first_hit(database_url, notes, "alpha beta") == "ideas/k1.md"


async def test_a_vector_side_sure_by_a_clear_margin_lifts_its_answer(database_url: str) -> None:
    """The keywords' first note holds both words, but the vectors' first leads their
    second by 0.007: sure enough to be heard."""
    notes = [
        note("ideas/words.md", "alpha beta near898"),
        note("ideas/meaning.md", "alpha lorem near905"),
    ]
    assert await first_hit(database_url, notes, "alpha beta") == "ideas/meaning.md"
