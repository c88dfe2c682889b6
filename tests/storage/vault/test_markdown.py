"""One grammar of links and code: backlinks, relinking after a rename and a note's
title read the same note the same way (a link in any kind of code is no link; a
link in a nested list item is one)."""

from __future__ import annotations

from pathlib import Path

from storage.text.code import without_code
from storage.vault.markdown import links
from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import ANN

MIXED = """Real: [[green-tea]] and [the plan](plan.md).

Inline `[[green-tea]]` and `[x](plan.md)` are code.

```
[[green-tea]] fenced
```

    [[green-tea]] in an indented block
    [y](plan.md)

- a list
    - nested [[green-tea|the tea]] is a link, not code

~~~python
[[green-tea]] never closed
"""


def test_code_of_every_kind_is_blanked_and_nothing_else() -> None:
    masked = without_code(MIXED)
    assert len(masked) == len(MIXED) and masked.count("\n") == MIXED.count("\n")
    assert [link.target for link in links(MIXED)] == [
        "green-tea",
        "green-tea|the tea",
        "plan.md",
    ]
    assert "nested [[green-tea|the tea]]" in masked
    assert "indented block" not in masked and "fenced" not in masked


def test_a_paragraph_line_that_is_indented_is_no_code() -> None:
    text = "A paragraph\n    that goes on [[Tea]]\n\nand\n\n\tcode [[Not]]\n"
    assert [link.wiki_name for link in links(text)] == ["Tea"]


async def test_backlinks_and_a_rename_agree_on_what_is_a_link(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        tea = await store.create("ideas", "Green Tea", "Steep it.")
        plan = await store.create("ideas", "plan", "Plans.")
        mixed = await store.create("ideas", "Mixed", MIXED)
        code = "`[[green-tea]]`\n\n    [[green-tea]] and [z](plan.md)\n"
        await store.create("ideas", "Only code", code)
        assert [h.path for h in await store.backlinks(tea.path)] == [mixed.path]
        assert [h.path for h in await store.backlinks(plan.path)] == [mixed.path]

        renamed, _ = await store.rename(tea.path, "Matcha", author=ANN)
        text = (tmp_path / "vault" / mixed.path).read_text(encoding="utf-8")
        # The two links were rewritten; every mention in code is as it was.
        assert "Real: [[matcha]]" in text and "nested [[matcha|the tea]]" in text
        assert text.count("[[green-tea]]") == 4
        assert [h.path for h in await store.backlinks(renamed.path)] == [mixed.path]
        untouched = (tmp_path / "vault" / "ideas" / "only-code.md").read_text(encoding="utf-8")
        assert code in untouched


def test_a_heading_in_code_is_no_title() -> None:
    from storage.vault.notefile import first_heading

    assert first_heading("    # Not this\n\n# `Code` in a title\n") == "`Code` in a title"
    assert first_heading("```\n# no\n```\n# Yes\n") == "Yes"


def _linked(text: str) -> list[str]:
    return [link.wiki_name or link.target for link in links(text)]


def test_code_spans_close_on_a_run_of_the_same_length() -> None:
    assert _linked("`a` [[x]] ``b`` [[y]]") == ["x", "y"]
    assert _linked("``a` [[x]] ``") == []  # the single backtick is inside the span
    assert _linked("`a [[x]]") == ["x"]  # never closed: plain text
    assert _linked("```` [[x]] `") == ["x"]  # no run of four closes it
    assert _linked("`a` `[[x]]` [[y]]\n`[[z]]") == ["y", "z"]  # a span ends with its line
    masked = without_code("say `x` and ``y``")
    assert masked == "say " + " " * 3 + " and " + " " * 5


def test_a_hostile_note_is_read_in_one_pass() -> None:
    """Notes written to stall a reader (a line of 200,000 backticks, of `[a](`, of
    `[[`): each is read in one pass (quadratic reading took minutes here), and the
    link after the noise is still found."""
    for noise in ("`", "[a](", "[[", "[a](<", "[a:: ", "```"):
        body = "x " + noise * (200_000 // len(noise)) + " [[tea]]\n"
        assert "tea" in _linked(body), noise
        assert len(without_code(body)) == len(body)
