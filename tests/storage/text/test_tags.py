"""Inline `#tags` as Obsidian reads them: where a `#` is a tag and where it is not."""

from __future__ import annotations

import pytest

from storage.text.tags import inline_tags, note_tags, with_parents


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("Finished the novel #reading", ["reading"]),
        ("#reading at the start of a line", ["reading"]),
        ("Nested: #books/scifi and #Books/SciFi", ["books/scifi", "Books/SciFi"]),
        ("A year is no tag: #2026, an issue neither: #123; #y2026 is", ["y2026"]),
        ("# A heading\n## Another", []),
        ("C# and page#part and ##double and &#123;", []),
        ("`#inline-code` and\n```\n#fenced\n```\n", []),
        ("See [[Reading list#Backlog]] and [[#Heading]]", []),
        ("https://example.org/#/route and https://example.org/page#part", []),
        ("[the section](#section) and [page](notes.md#part)", []),
        ("#end/ twice #end", ["end"]),
    ],
)
def test_tags_where_obsidian_sees_them(text: str, tags: list[str]) -> None:
    assert inline_tags(text) == tags


def test_a_nested_tag_counts_as_its_parents() -> None:
    assert with_parents(["a/b/c", "x", "a/b"]) == ["a/b/c", "a/b", "a", "x"]


def test_a_long_run_of_hashes_and_links_is_read_in_one_pass() -> None:
    # Every pattern here starts once per run, so hostile text stays linear.
    text = "#" * 100_000 + "[[x]]" * 20_000 + " #ok"
    assert inline_tags(text) == ["ok"]


def test_a_notes_tags_are_its_declared_then_its_written_with_parents() -> None:
    body = "Read on the train #books/scifi and `#not-a-tag`"
    assert note_tags(["travel", "books"], body) == ["travel", "books", "books/scifi"]
    assert note_tags(("a/b",), "no tag here") == ["a/b", "a"]
