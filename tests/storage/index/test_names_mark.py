"""The mark of a vault's people and projects (what a capture may name) moves when one
of their notes is written, renamed, edited by hand, deleted or the index is rebuilt,
and stays put while other notes come and go: the timeline keeps the names it built
until then (bot.connect.timeline), and reads one row to know."""

from __future__ import annotations

from pathlib import Path

from storage.store import Store
from tests.storage.index.index_support import opened_store


async def moved(store: Store, before: str) -> tuple[bool, str]:
    now = await store.index.names_mark()
    return now != before, now


async def test_the_names_mark_moves_with_people_and_projects_only(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        mark = await store.index.names_mark()
        idea = await store.create("ideas", "Kite", "A red kite.")
        await store.update(idea.path, fields={"aliases": ["Glider"]})
        assert not (await moved(store, mark))[0]  # an idea names nobody

        person = await store.create("people", "Sarah Kim", "Met at the allotment.")
        changed, mark = await moved(store, mark)
        assert changed
        await store.update(person.path, fields={"aliases": ["Sunny"]})
        changed, mark = await moved(store, mark)
        assert changed

        (vault / "projects" / "Seed swap.md").write_text("---\ntitle: Seed swap\n---\nIn May.\n")
        await store.sync()
        changed, mark = await moved(store, mark)
        assert changed

        await store.delete(person.path)
        changed, mark = await moved(store, mark)
        assert changed
        (vault / "projects" / "Seed swap.md").unlink()
        await store.sync()
        changed, mark = await moved(store, mark)
        assert changed

        await store.create("ideas", "Tea", "Green tea.")
        (vault / idea.path).unlink()
        await store.sync()
        assert not (await moved(store, mark))[0]

        await store.reindex()
        assert (await moved(store, mark))[0]  # a rebuild may change anything
