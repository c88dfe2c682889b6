"""Typed links, as basic-memory and Dataview write them: read with their type (not in
code, not from prose), kept through edits, shown by backlinks and found by
`linked:` searches; plain links work as before."""

from __future__ import annotations

from pathlib import Path

from storage.index.note_links import extract_links
from storage.text.code import without_code
from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import ANN

SARAH = """# Sarah Kim

## Relations
- works_at [[Acme]]
- "reports to" [[Dana Lee]] (since May)
- Call [[Tom]] about the budget
1. mentors [[Ravi]]

employer:: [[Acme]], [[Initech]]
> - met_at:: [[Berlin]]
Met her at the fair [met_at:: [[Expo]]] and (knows:: [[Bob]]).
`- works_at [[Code Corp]]`

```
- works_at [[Fenced Corp]]
employer:: [[Fenced Corp]]
```
See [[Acme]] and [the plan](../projects/plan.md).
- relates_to [[Alpha]] and [[Beta]]
- [x] [[Done]]
"""


def _types(body: str) -> dict[str, set[str | None]]:
    found: dict[str, set[str | None]] = {}
    for link in extract_links(body, "people/sarah-kim.md"):
        found.setdefault(link.key, set()).add(link.relation)
    return found


def test_relations_are_read_with_their_type_and_prose_stays_plain() -> None:
    assert _types(SARAH) == {
        "acme": {"works_at", "employer", None},
        "dana-lee": {"reports to"},
        "tom": {None},  # prose after the link: an ordinary link (basic-memory's rule)
        "ravi": {"mentors"},
        "initech": {"employer"},
        "berlin": {"met_at"},
        "expo": {"met_at"},
        "bob": {"knows"},
        "plan": {None},
        "alpha": {None},
        "beta": {None},
        "done": {None},
    }


def test_links_in_code_have_no_type_because_they_are_no_links() -> None:
    keys = _types(SARAH)
    assert "code-corp" not in keys and "fenced-corp" not in keys
    assert without_code("`- works_at [[X]]`").strip() == ""


def test_a_context_must_be_one_balanced_group() -> None:
    assert _types("- works_at [[Acme]] (2019 (remote))") == {"acme": {"works_at"}}
    assert _types("- works_at [[Acme]] (a) and (b)") == {"acme": {None}}
    assert _types("- works_at [[Acme]] (unclosed") == {"acme": {None}}


async def test_types_survive_edits_and_show_in_backlinks_and_linked_searches(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        acme = await store.create("projects", "Acme", "A client.")
        sarah = await store.create("people", "Sarah Kim", "- works_at [[Acme]]\n")
        tom = await store.create("people", "Tom Lee", "Lunch at [[Acme]] on Friday.")
        await store.create("ideas", "Elsewhere", "- works_at [[Initech]]")

        by_path = {h.path: h.relations for h in await store.backlinks(acme.path)}
        assert by_path == {sarah.path: ("works_at",), tom.path: ()}

        hits = await store.search("linked:[[Acme]]")
        assert {h.path for h in hits.hits} == {sarah.path, tom.path}
        typed = await store.search("linked:works_at:[[acme]]")
        assert [h.path for h in typed.hits] == [sarah.path]
        # A path works as well as a name; a note not written yet is found by its name.
        assert {h.path for h in (await store.search("linked:[[projects/acme]]")).hits} == {
            sarah.path,
            tom.path,
        }
        assert [h.path for h in (await store.search('linked:"Initech"')).hits] == [
            "ideas/elsewhere.md"
        ]
        none = await store.search("linked:employer:[[Acme]]")
        assert none.hits == () and none.empty == "No notes linking to [[Acme]] as employer."

        # An edit changes the type; the index follows the note.
        await store.update(sarah.path, body="- employer:: [[Acme]]\n", author=ANN)
        by_path = {h.path: h.relations for h in await store.backlinks(acme.path)}
        assert by_path[sarah.path] == ("employer",)
        assert (await store.search("linked:works_at:[[Acme]]")).hits == ()
        # Words and a link filter together.
        both = await store.search("lunch linked:[[Acme]]")
        assert [h.path for h in both.hits] == [tom.path]
