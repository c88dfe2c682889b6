"""Bulk indexing embeds each passage once: a rebuild keeps the vectors of notes whose
text did not change (the same vectors, not embedded again), and a passage said twice
in one import is embedded once."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text

from storage.db.connection import Database
from storage.index import bulk
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from tests.storage.index.index_support import connected, note


class Counting(HashingEmbedder):
    """The hashing embedder, keeping the texts it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(32)
        self.asked: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.asked += texts
        return await super().embed(texts)


async def _vectors(database: Database) -> dict[str, list[str]]:
    async with database.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT e.path, c.embedding::text AS vector FROM entries e"
                " JOIN chunks c ON c.entry_id = e.id ORDER BY e.path, c.ord"
            )
        )
        found: dict[str, list[str]] = {}
        for row in rows:
            found.setdefault(row.path, []).append(row.vector)
        return found


async def test_a_rebuild_keeps_the_vectors_of_unchanged_notes(database_url: str) -> None:
    embedder = Counting()
    kite = note("ideas/kite.md", "A red kite for the windy days.")
    boat = note("ideas/boat.md", "A boat for the lake.\n\n## Sails\n\nTwo white sails.")
    async with connected(database_url) as database:
        index = await Index.open(database, embedder)
        await bulk.load(index, [kite, boat, note("ideas/gone.md", "Soon deleted.")])
        before = await _vectors(database)
        embedder.asked.clear()
        changed = note("ideas/boat.md", "A boat for the sea.\n\n## Sails\n\nTwo white sails.")
        await bulk.load(index, [kite, changed], replace_all=True)
        after = await _vectors(database)
        asked = list(embedder.asked)
        found = await index.search("sea sails")
    assert after["ideas/kite.md"] == before["ideas/kite.md"]
    assert set(after) == {"ideas/kite.md", "ideas/boat.md"}
    assert asked == ["boat\n\nA boat for the sea.", "boat\nSails\n\nTwo white sails."]
    assert found.hits[0].path == "ideas/boat.md"


async def test_a_passage_said_twice_is_embedded_once(database_url: str) -> None:
    embedder = Counting()
    twins = [note(f"{folder}/standup.md", "Who, what, blockers.") for folder in ("work", "old")]
    async with connected(database_url) as database:
        index = await Index.open(database, embedder)
        await bulk.load(index, twins)
        vectors = await _vectors(database)
    assert embedder.asked == ["standup\n\nWho, what, blockers."]
    assert vectors["work/standup.md"] == vectors["old/standup.md"]
