"""The index follows changes made outside brainbot: hand edits, deletions, new
files, commits made with git, rewritten history, and a full rebuild."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from storage.store import Store
from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import ANN, git, outside_commit


async def paths_for(store: Store, query: str) -> set[str]:
    """Notes the query's words occur in (the stores here are keyword-only)."""
    return {h.path for h in (await store.search(query)).hits}


async def test_hand_edit_delete_and_new_file(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        kite = await store.create("ideas", "Kite", "A red kite.")
        tea = await store.create("ideas", "Tea", "Green tea.")

        (vault / kite.path).write_text("---\ntitle: Kite\n---\nA blue glider.\n")
        (vault / tea.path).unlink()
        (vault / "inbox" / "new note.md").write_text("Remember the glider club.\n")
        report = await store.sync()

        assert (report.indexed, report.removed) == (2, 1)
        assert report.head == store.vault.head()
        assert await paths_for(store, "glider") == {kite.path, "inbox/new note.md"}
        assert await paths_for(store, "tea") == set()
        assert (await store.sync()).indexed == 0  # nothing new: nothing re-indexed


async def test_hand_edits_are_embedded_too(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url) as store:
        kite = await store.create("ideas", "Kite", "A red kite.")
        (vault / kite.path).write_text("A blue glider over the hills.\n")
        await store.sync()
        async with store.database.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT e.embedded, count(c.id) FROM entries e"
                    " LEFT JOIN chunks c ON c.entry_id = e.id GROUP BY e.id"
                )
            )
            assert [tuple(r) for r in rows] == [(True, 1)]
        results = await store.search("glider hills")
        assert results.mode == "hybrid" and results.hits[0].path == kite.path


async def test_commit_made_outside_with_git(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        await store.create("ideas", "Kite", "A red kite.")
        (vault / "projects" / "outside.md").write_text(
            "# Outside\nPulled from a laptop: zeppelin.\n"
        )
        outside_commit(vault, "add a note by hand")

        report = await store.sync()
        assert report.indexed == 1
        assert await store.index.last_commit() == git(vault, "rev-parse", "HEAD").strip()
        hits = (await store.search("zeppelin")).hits
        assert [(h.path, h.title) for h in hits] == [("projects/outside.md", "Outside")]


async def test_a_write_after_an_outside_commit_indexes_both(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        (vault / "ideas" / "by-hand.md").write_text("Hand-made airship notes.\n")
        outside_commit(vault, "by hand")
        # Our commit's parent is not the indexed commit: the store syncs at once.
        await store.create("ideas", "Bot note", "Made by the bot.", author=ANN)
        assert await paths_for(store, "airship") == {"ideas/by-hand.md"}
        assert await store.index.last_commit() == store.vault.head()


async def test_reverted_hand_edit_does_not_linger(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        kite = await store.create("ideas", "Kite", "A red kite.")
        original = (vault / kite.path).read_bytes()
        (vault / kite.path).write_text("A purple balloon.\n")
        await store.sync()
        assert await paths_for(store, "balloon") == {kite.path}

        (vault / kite.path).write_bytes(original)  # undone by hand, never committed
        await store.sync()
        assert await paths_for(store, "balloon") == set()
        assert await paths_for(store, "kite") == {kite.path}


async def test_rewritten_history_drops_notes_that_are_gone(
    tmp_path: Path, database_url: str
) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        await store.create("ideas", "Kite", "A red kite.")
        await store.create("ideas", "Tea", "Green tea.")
        git(vault, "reset", "--hard", "-q", "HEAD~1")  # e.g. a force-pushed remote
        await store.sync()
        assert await paths_for(store, "tea") == set()
        assert await paths_for(store, "kite") == {"ideas/kite.md"}


async def test_indexed_commit_missing_from_history(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        await store.create("ideas", "Kite", "A red kite.")
        await store.create("ideas", "Tea", "Green tea.")
        (vault / "ideas" / "tea.md").unlink()
        outside_commit(vault, "drop tea")
        await store.index.mark_synced("0" * 40)  # a commit this repository never had
        await store.sync()
        assert await paths_for(store, "tea") == set()
        assert await paths_for(store, "kite") == {"ideas/kite.md"}
        assert await store.index.last_commit() == store.vault.head()


async def test_reindex_rebuilds_everything(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        for number in range(5):
            await store.create("ideas", f"Note {number}", f"Body {number} with [[Note 0]].")
        async with store.database.engine.begin() as conn:
            await conn.execute(text("DELETE FROM entries"))
        assert await store.index.count() == 0
        seen: list[tuple[int, int]] = []
        report = await store.reindex(progress=lambda done, total: seen.append((done, total)))
        assert report.indexed == 5
        assert seen[-1] == (5, 5)
        assert len(await store.backlinks("ideas/note-0.md")) == 4
        assert await paths_for(store, "body") == {f"ideas/note-{n}.md" for n in range(5)}
        assert await store.index.last_commit() == store.vault.head()


async def test_hand_edits_are_committed_once_per_sync(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "vault"
    async with opened_store(vault, database_url, keyword_only=True) as store:
        kite = await store.create("ideas", "Kite", "A red kite.")
        tea = await store.create("ideas", "Tea", "Green tea.")
        (vault / kite.path).write_text("---\ntitle: Kite\n---\nA blue glider.\n")
        (vault / tea.path).unlink()
        (vault / "inbox" / "new note.md").write_text("Remember the glider club.\n")
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "app.json").write_text("{}")
        commits = len(git(vault, "log", "--format=%H").split())

        await store.sync()

        log = git(vault, "log", "--format=%an|%s").splitlines()
        assert len(log) == commits + 1
        assert log[0] == "edited outside brainbot|edit 3 notes"
        shown = git(vault, "show", "--name-status", "--format=", "HEAD").split("\n")
        assert sorted(line.split("\t")[1] for line in shown if line) == [
            "ideas/kite.md",
            "ideas/tea.md",
            "inbox/new note.md",
        ]
        status = git(vault, "status", "--porcelain")
        assert status.strip() in ("", "?? .obsidian/")  # notes clean; app settings untouched
        await store.sync()
        assert len(git(vault, "log", "--format=%H").split()) == commits + 1
        assert await paths_for(store, "glider") == {kite.path, "inbox/new note.md"}
