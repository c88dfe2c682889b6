"""The index follows what a sync with the git remote brought in (the incremental sync
over the git diff): after each round it equals a reindex, a device's words are found,
and a rename pulled from a device moves the note and its backlinks."""

from __future__ import annotations

from pathlib import Path

from storage.store import Store
from tests.storage.index.index_support import opened_store
from tests.storage.vault.sync_support import Device, bare_remote, run_git
from tests.storage.vault.vault_support import ANN


async def index_state(store: Store) -> dict[str, tuple[str, list[str]]]:
    """Each indexed note's content hash and the notes linking to it."""
    paths = sorted(await store.index.paths())
    hashes = await store.index.content_hashes(paths)
    return {
        path: (hashes[path], sorted(b.path for b in await store.backlinks(path))) for path in paths
    }


async def assert_index_equals_a_reindex(store: Store) -> None:
    synced = await index_state(store)
    await store.reindex()
    assert synced == await index_state(store)
    assert await store.index.last_commit() == store.vault.head()


async def test_the_index_follows_every_round_of_a_two_way_sync(
    tmp_path: Path, database_url: str
) -> None:
    remote = str(bare_remote(tmp_path / "remote.git"))
    async with opened_store(tmp_path / "vault", database_url, keyword_only=True) as store:
        await store.create("people", "Sarah", "Met at the fair", author=ANN)
        await store.create("ideas", "Garden", "Dig the beds\nAsk [[Sarah]]", author=ANN)
        assert (await store.sync_remote(remote)).outcome == "empty-remote"
        laptop = Device(Path(remote), tmp_path / "laptop")

        # Round 1: the device adds a note and edits another; the bot captures.
        laptop.write("ideas/Train thoughts.md", "# Train thoughts\n\nquokka migration [[Sarah]]\n")
        laptop.write("people/Sarah.md", laptop.read("people/Sarah.md") + "Likes quinces\n")
        laptop.commit()
        laptop.push()
        await store.create("inbox", "Capture", "an okapi sighting", author=ANN)
        done = await store.sync_remote(remote)
        assert (done.outcome, done.conflicts) == ("merged", ())
        assert [h.path for h in (await store.search("quokka migration")).hits] == [
            "ideas/Train thoughts.md"
        ]
        assert [h.path for h in (await store.search("quinces")).hits] == ["people/Sarah.md"]
        await assert_index_equals_a_reindex(store)

        # Round 2: the device renames Sarah and deletes the capture; the bot edits the
        # garden note and changes Sarah's frontmatter.
        laptop.pull()
        run_git(laptop.root, "mv", "people/Sarah.md", "people/Sarah Example.md")
        run_git(laptop.root, "rm", "--quiet", "inbox/capture.md")
        laptop.commit("rename and tidy")
        laptop.push()
        await store.update("people/Sarah.md", fields={"tags": ["friend"]}, author=ANN)
        await store.update("ideas/garden.md", body="Dig the beds\nAsk [[Sarah]] again", author=ANN)
        done = await store.sync_remote(remote)
        assert done.conflicts == ()
        assert "people/Sarah.md" not in await store.index.paths()
        renamed = await store.read("people/Sarah Example.md")
        assert renamed.fields["tags"] == ["friend"] and "Likes quinces" in renamed.body
        assert (await store.search("okapi")).hits == ()
        await assert_index_equals_a_reindex(store)

        # Round 3: both change the same line: a conflict copy, indexed like any note.
        laptop.pull()
        laptop.write("ideas/garden.md", laptop.read("ideas/garden.md").replace("beds", "plots"))
        laptop.commit()
        laptop.push()
        await store.update("ideas/garden.md", body="Weed the beds\nAsk [[Sarah]] again", author=ANN)
        done = await store.sync_remote(remote)
        [conflict] = done.conflicts
        hits = {h.path for h in (await store.search("plots")).hits}
        assert hits == {conflict.copy}
        assert "Weed the beds" in (await store.read("ideas/garden.md")).body
        await assert_index_equals_a_reindex(store)


async def test_a_new_vault_starts_indexed_from_a_remote_that_has_notes(
    tmp_path: Path, database_url: str
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    seed = tmp_path / "seed"
    run_git(tmp_path, "init", "--quiet", "--initial-branch=main", str(seed))
    (seed / "Reading").mkdir()
    (seed / "Reading/Walden.md").write_text("# Walden\n\nsimplify, simplify\n")
    run_git(seed, "add", "--all")
    run_git(seed, "commit", "--quiet", "-m", "my Obsidian vault")
    run_git(seed, "push", "--quiet", str(remote), "HEAD:main")

    async with opened_store(tmp_path / "fresh", database_url, keyword_only=True) as store:
        assert (await store.sync_remote(str(remote))).outcome == "adopted"

        assert [h.path for h in (await store.search("simplify")).hits] == ["Reading/Walden.md"]
        await assert_index_equals_a_reindex(store)
