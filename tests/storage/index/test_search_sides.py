"""`Index.sides`: the two candidate lists a search fuses, which bench/fusion.py chooses
the fusion on. A searcher's hits are their fusion, in that order; the query's own
syntax restricts both lists, as it restricts the search; without vectors there is no
vector side."""

from __future__ import annotations

from sqlalchemy import text

from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from tests.storage.index.index_support import note, opened_index

NOTES = [
    note("tools/netstat.md", "Network statistics. List interfaces: netstat -i"),
    note("tools/ss.md", "Socket statistics, where netstat is gone: ss -a"),
    note("tools/route.md", "The routing table: route -n"),
    note("tools/ip.md", "Show the routing table and interfaces: ip route"),
]


async def ids(index: Index) -> dict[str, int]:
    async with index.database.engine.connect() as conn:
        rows = await conn.execute(
            text("SELECT id, path FROM entries WHERE vault_id = :v"), {"v": index.vault_id}
        )
        return {str(r.path): int(r.id) for r in rows}


async def test_the_hits_are_the_fusion_of_the_sides(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        paths = await ids(index)
        for query in ("routing table interfaces", "netstat -routing", '"routing table"'):
            sides = await index.sides(query)
            results = await index.search(query, limit=10)
            assert results.mode == "hybrid"
            assert [paths[h.path] for h in results.hits] == [i for i, _ in sides.fused()][:10]


async def test_the_query_syntax_restricts_both_sides(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        netstat = (await ids(index))["tools/netstat.md"]
        sides = await index.sides("netstat -interfaces")
        assert sides.vector is not None
        assert netstat not in [i for i, _ in sides.keyword.hits]
        assert netstat not in [i for i, _, _ in sides.vector]
        assert sides.keyword.hits  # ss.md still holds the word


async def test_a_question_with_a_commands_flag_finds_the_command(database_url: str) -> None:
    async with opened_index(database_url, HashingEmbedder(64)) as index:
        await index.upsert(NOTES)
        results = await index.search("netstat -i", limit=10)
        assert results.hits[0].path == "tools/netstat.md"


async def test_without_vectors_there_is_no_vector_side(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)
        sides = await index.sides("routing table")
        assert sides.vector is None
        assert sides.fused() == sides.keyword.hits
        assert len(sides.keyword.hits) == 2
