"""`tag:` finds notes tagged in their text (`#reading`), as Obsidian does, as well as
those tagged in their frontmatter; a nested tag is found by its parent (issue 40)."""

from __future__ import annotations

from storage.index.index import Index
from tests.storage.index.index_support import note, opened_index

NOTES = [
    note("ideas/novel.md", "Finished the novel, loved it. #reading"),
    note("ideas/frontmatter.md", "Tagged the usual way.", tags=["reading"]),
    note("ideas/scifi.md", "Dune again #books/scifi"),
    note("ideas/code.md", "The `#reading` flag in code, and [[Reading list#reading]]."),
    note("ideas/issue.md", "# reading\n\nFixed #123 at https://example.org/#reading"),
]


async def tagged(index: Index, query: str) -> list[str]:
    return sorted(hit.path for hit in (await index.search(query, limit=20)).hits)


async def test_inline_tags_are_found_by_tag_search(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert(NOTES)
        assert await tagged(index, "tag:reading") == ["ideas/frontmatter.md", "ideas/novel.md"]
        assert await tagged(index, "tag:books/scifi") == ["ideas/scifi.md"]
        assert await tagged(index, "tag:books") == ["ideas/scifi.md"]
        assert await tagged(index, "tag:123") == []
