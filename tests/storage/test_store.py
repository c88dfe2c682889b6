"""The Store facade: every write through it is searchable at once, listings and
backlinks come from the index, and the index follows the embedder it is given."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db.connection import Database
from storage.errors import DatabaseUnavailable, EmbedderChanged
from storage.index.embeddings import HashingEmbedder
from storage.store import Store
from tests.storage.index.index_support import connected, opened_store
from tests.storage.vault.vault_support import ANN, CATEGORIES, LIMITS


async def test_writes_are_searchable_at_once_and_the_index_knows_the_commit(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        entry = await store.create(
            "projects", "Website relaunch", "Plan the budget call with Sarah.", author=ANN
        )
        assert [h.path for h in (await store.search("budget call")).hits] == [entry.path]
        assert await store.index.last_commit() == store.vault.head()

        updated = await store.update(entry.path, body="Hire a zeppelin pilot.", author=ANN)
        assert [h.path for h in (await store.search("zeppelin")).hits] == [entry.path]
        assert updated.body == "Hire a zeppelin pilot."

        moved = await store.move(entry.path, "ideas", author=ANN)
        hits = (await store.search("zeppelin")).hits
        assert [(h.path, h.category) for h in hits] == [(moved.path, "ideas")]

        await store.delete(moved.path, author=ANN)
        assert (await store.search("zeppelin")).hits == ()
        assert await store.list() == []
        assert await store.index.last_commit() == store.vault.head()


async def test_undo_brings_the_note_back_into_the_index(tmp_path: Path, database_url: str) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        entry = await store.create("ideas", "Tea garden", "Plant camellia sinensis.")
        change = await store.delete(entry.path, author=ANN)
        assert (await store.search("camellia")).hits == ()
        await store.undo(change.commit, author=ANN)
        assert [h.path for h in (await store.search("camellia")).hits] == [entry.path]


async def test_an_update_names_its_own_commit_for_a_later_undo(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        entry = await store.create("ideas", "Tea", "Green tea.", author=ANN)
        updated, change = await store.update_committed(entry.path, body="Oolong.", author=ANN)
        assert updated.body == "Oolong." and change.paths == (entry.path,)
        assert change.commit == store.vault.head() and change.operation == "update"
        kites = await store.create("ideas", "Kites", "Fly them.", author=ANN)
        await store.undo(change.commit, author=ANN)
        assert (await store.read(entry.path)).body == "Green tea."
        assert (await store.read(kites.path)).body == "Fly them."


async def test_list_is_newest_first_with_filters(tmp_path: Path, database_url: str) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        first = await store.create("projects", "Garden", "", {"status": "active", "tags": ["home"]})
        second = await store.create("projects", "Roof", "", {"status": "done", "tags": ["home"]})
        third = await store.create("ideas", "Poem", "", {"tags": ["art"]})
        await store.update(first.path, fields={"next_action": "buy seeds"}, author=ANN)

        recent = await store.recent()
        assert recent == [(first.path, "Garden"), (third.path, "Poem"), (second.path, "Roof")]
        projects = await store.list(category="projects")
        assert [e.path for e in projects] == [first.path, second.path]
        assert projects[0].fields["next_action"] == "buy seeds"
        assert projects[0].fields["created"] == (await store.read(first.path)).fields["created"]
        assert [e.path for e in await store.list(status="done")] == [second.path]
        assert [e.path for e in await store.list(tag="HOME", limit=1)] == [first.path]


async def test_backlinks_by_name_alias_heading_path_and_markdown_link(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        # Linked before the target exists: it counts once the target appears.
        early = await store.create("ideas", "Early", "Ask [[Sarah Connor|Sarah]] about it.")
        sarah = await store.create("people", "Sarah Connor", "Finance.")
        plan = await store.create("projects", "Q3 Plan", "Budget.")
        await store.create("ideas", "Heading", "See [[projects/q3-plan#Budget]].")
        await store.create("ideas", "Markdown", "See [the plan](../projects/q3-plan.md).")
        await store.create("ideas", "Elsewhere", "See [[other/q3-plan]] and [[Nobody]].")

        to_sarah = await store.backlinks(sarah.path)
        assert [h.path for h in to_sarah] == [early.path]
        assert to_sarah[0].snippet == "Ask [[Sarah Connor|Sarah]] about it."
        to_plan = {h.path for h in await store.backlinks(plan.path)}
        assert to_plan == {"ideas/heading.md", "ideas/markdown.md"}

        await store.delete(early.path, author=ANN)
        assert await store.backlinks(sarah.path) == []


async def test_second_start_is_idempotent_and_syncs(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url) as store:
        entry = await store.create("ideas", "Kite", "A red kite.")
    (vault / "ideas" / "extra.md").write_text("Written while the bot was down: kite string.\n")
    async with opened_store(vault, database_url) as store:
        hits = {h.path for h in (await store.search("kite")).hits}
        assert hits == {entry.path, "ideas/extra.md"}
        assert await store.index.count() == 2


async def test_another_embedder_is_refused_until_asked_to_re_embed_every_note(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, HashingEmbedder(64)) as store:
        await store.create("ideas", "Kite", "A red kite.")
    with pytest.raises(EmbedderChanged, match=r"hashing:64.*hashing:32"):
        async with opened_store(vault, database_url, HashingEmbedder(32)):
            pass
    async with opened_store(vault, database_url, HashingEmbedder(32), reembed=True) as store:
        async with store.database.engine.connect() as conn:
            dims = await conn.execute(text("SELECT DISTINCT vector_dims(embedding) FROM chunks"))
            assert list(dims.scalars()) == [32]
            meta = (await conn.execute(text("SELECT embedder FROM index_meta"))).scalar_one()
            assert meta == "hashing:32"
        results = await store.search("kite")
        assert results.mode == "hybrid" and len(results.hits) == 1


async def test_without_embedder_search_is_keyword_only(tmp_path: Path, database_url: str) -> None:
    async with connected(database_url) as database:
        store = await Store.open(
            vault_dir=tmp_path / "vault",
            categories=CATEGORIES,
            database=database,
            embedder=None,
            **LIMITS,
        )
        await store.create("ideas", "Kite", "A red kite.")
        results = await store.search("kite")
        await store.close()
    assert results.mode == "keyword"
    assert results.notes and "keyword search only" in results.notes[0]
    assert [h.title for h in results.hits] == ["Kite"]


async def test_attachments_and_whole_notes(tmp_path: Path, database_url: str) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        [path] = await store.write_attachments([("photo.jpg", b"\xff\xd8jpeg")], author=ANN)
        assert (store.vault.root / path).read_bytes() == b"\xff\xd8jpeg"
        written = await store.write_note(
            "digests/2026-11-20.md",
            "# Digest\n\nThree open loops.\n",
            operation="digest",
            author=ANN,
        )
        assert written.entry is not None
        assert [h.path for h in (await store.search("open loops")).hits] == [written.entry.path]
        assert await store.index.last_commit() == store.vault.head()


async def test_embedded_postgres_when_no_url(tmp_path: Path) -> None:
    database = await Database.connect(None, tmp_path / "data")
    second = await Database.connect(None, tmp_path / "data")  # same server, same process
    try:
        assert (tmp_path / "data" / "pg" / "PG_VERSION").is_file()
        await second.create_schema()  # a second time changes nothing
        await second.close()  # the server stays up for the first user
        async with database.engine.connect() as conn:
            version = await conn.execute(
                text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            )
            assert version.scalar_one() >= "0.6"
    finally:
        await database.close()


async def test_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    url = f"postgresql://brainbot:secret@/brainbot?host={tmp_path}/nowhere"
    with pytest.raises(DatabaseUnavailable) as raised:
        await Database.connect(url, tmp_path)
    assert "cannot connect to the database" in str(raised.value)
    assert "secret" not in str(raised.value)
