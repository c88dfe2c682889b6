"""What bench/fusion.py chooses the hybrid fusion on is what the search fuses: the
candidates bench.thirdparty_ranking keeps for a question, ranked with the shipped
rule, give the very ranking a searcher gets. They did not: the kept candidates ignored
the question's own syntax ("a phrase", -word), which the search applies to both
sides, so on command-reference questions (`For netstat -interfaces`) the bench scored hybrid
search on lists no searcher was shown, and the end-to-end bench measured it below
keyword-only where the fusion bench had it level. The peer (rank-bm25), which knows
no syntax, ranks only the notes the search lets through."""

from __future__ import annotations

from pathlib import Path

from bench.fusion import SHIPPED
from bench.thirdparty_ranking import DEPTH, rank
from tests.storage.index.index_support import opened_store

PAGES = {
    "netstat.md": "# netstat\n\nNetwork statistics.\n\n- List interfaces: `netstat -i`\n"
    "- Show the routing table: `netstat -r`\n",
    "ss.md": "# ss\n\nSocket statistics, where netstat is gone.\n\n- List sockets: `ss -a`\n",
    "route.md": "# route\n\nThe routing table.\n\n- Show it: `route -n`\n",
    "tr.md": "# tr\n\nTranslate characters.\n\n- Delete every ab: `tr -d ab`\n",
    "sed.md": '# sed\n\nStream editor.\n\n- Replace "ab" with "cd": `sed s/ab/cd/`\n',
}
QUERIES = ["For netstat -interfaces", 'Remove all occurrences of "ab"', "routing table"]


async def test_the_kept_candidates_fuse_to_what_the_search_gives(
    tmp_path: Path, database_url: str
) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for name, body in PAGES.items():
        (pages / name).write_text(body, encoding="utf-8")
    async with opened_store(tmp_path / "vault", database_url) as store:
        await store.import_folder(pages)
        rankings, kept = await rank(store, QUERIES)
    netstat = kept[0]
    # The search leaves out every note holding the word `-interfaces` excludes: so must the
    # lists the fusion is chosen on, on both sides.
    assert "netstat.md" not in rankings["hybrid"][0]
    keyword, vector = netstat[0], netstat[1]  # (a pair before `matched` was kept)
    assert "netstat.md" not in [path for path, _ in keyword]
    assert "netstat.md" not in [path for path, _ in vector]
    # A quoted word must occur: the keyword side keeps only the notes holding it.
    assert sorted(path for path, _ in kept[1][0]) == ["sed.md", "tr.md"]
    for query, hybrid, candidates in zip(QUERIES, rankings["hybrid"], kept, strict=True):
        fused = SHIPPED.rank(candidates.keyword, candidates.vector, candidates.matched)
        assert hybrid == fused[:DEPTH], query
    # The peer knows no syntax: it ranks only the notes the search lets through.
    assert set(rankings["rank-bm25 (peer)"][1]) == {"sed.md", "tr.md"}
    assert "netstat.md" not in rankings["rank-bm25 (peer)"][0]
    # Without syntax nothing is left out: both notes on routing tables are found.
    assert {"route.md", "netstat.md"} <= set(rankings["hybrid"][2])
