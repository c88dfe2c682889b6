"""The two candidate lists a hybrid search fuses, gathered in one place: `Index.search`
ranks by them, and bench/fusion.py chooses the fusion on them (through `Index.sides`),
so the bench weighs exactly the lists a searcher's query gets: its own syntax ("a
phrase", -word, OR) filtering both sides, the vector side given the text the search
embeds, the same depth.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.db.connection import autocommit
from storage.index import lookups
from storage.index.embeddings import EmbeddingError
from storage.index.filters import Filters
from storage.index.query import SearchQuery, parse_query
from storage.index.search import KeywordRanking, fuse, keyword_ranking, vector_ranking

Embedding = asyncio.Future[list[list[float]]]


@dataclass(frozen=True, slots=True)
class Sides:
    """A hybrid search's two candidate lists, as `fuse` gets them: the keyword side
    (see KeywordRanking) and the vector side, (entry id, cosine of its best chunk,
    that chunk's offset) best first; `vector` is None for a keyword-only search."""

    keyword: KeywordRanking
    vector: list[tuple[int, float, int]] | None = None

    def fused(self) -> list[tuple[int, float]]:
        """The notes in the order the search gives them (`fuse`, or BM25 alone)."""
        if self.vector is None:
            return self.keyword.hits
        near = [(entry_id, similarity) for entry_id, similarity, _ in self.vector]
        return fuse(self.keyword.hits, near, matched=self.keyword.matched)


async def query_filters(
    engine: AsyncEngine, vault_id: int, query: str, given: Filters, filed: Filters | None
) -> tuple[SearchQuery, Filters]:
    """The parsed query and every filter that applies to it: the caller's (`given`), the
    query's own syntax, the days a question named (`filed`, see storage.text.dates.
    question_span); links named by `linked:` resolved to notes."""
    parsed = parse_query(query)
    filters = given.merged(parsed.filters)
    if filed is not None:
        filters = filters.merged(filed)
    if filters.linked:
        async with autocommit(engine).connect() as conn:
            filters = await lookups.resolve_linked(conn, vault_id, filters)
    return parsed, filters


async def gather(
    conn: AsyncConnection,
    vault_id: int,
    parsed: SearchQuery,
    filters: Filters,
    embedding: Embedding | None,
    depth: int,
    notes: list[str],
) -> Sides:
    """Both rankings, `depth` notes each, in `conn`'s transaction. The vector side waits
    for `embedding` (the query's vector, started while the keywords rank; None: keyword
    only); when embedding failed, keyword only, said in `notes`."""
    keyword = await keyword_ranking(conn, vault_id, parsed, filters, depth)
    if embedding is None:
        return Sides(keyword)
    try:
        query_vector = (await embedding)[0]
    except EmbeddingError as exc:
        notes.append(f"keyword search only: embedding the query failed ({exc})")
        return Sides(keyword)
    return Sides(keyword, await vector_ranking(conn, vault_id, query_vector, filters, depth))
