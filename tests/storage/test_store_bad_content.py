"""A vault survives its own content: next to good notes, a hand-written impossible
date, a folder 1,000 levels deep, a sparse 1.5 GB note, a named pipe, a symlink to
/dev/zero and a note that is not UTF-8. The store opens, the good notes (and all
that can be read of the others) are searchable, each bad thing is reported with
its path and why, and a later hand edit is still indexed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.index.sync import SyncReport
from storage.store import Store
from tests.storage.index.index_support import opened_store
from tests.storage.vault.bad_content import nest, put_bad_things, unnest
from tests.storage.vault.vault_support import git, make_vault, outside_commit


@pytest.fixture
def vault_root(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "vault"
    yield root
    unnest(root)


def reasons(report: SyncReport) -> dict[str, str]:
    return dict(report.skipped)


async def paths_for(store: Store, query: str) -> list[str]:
    return sorted(h.path for h in (await store.search(query)).hits)


async def test_the_store_opens_indexes_the_rest_and_says_what_it_left_out(
    vault_root: Path, database_url: str
) -> None:
    root = vault_root
    vault = make_vault(root)
    vault.create("ideas", "Good", "A good heron.")
    put_bad_things(root / "ideas", "a")
    deep = nest(root, 1000)

    async with opened_store(root, database_url, keyword_only=True) as store:
        opening = reasons(store.opening)
        assert await paths_for(store, "heron") == ["ideas/good.md"]
        # An invalid date is read as absent: the note is indexed, the date reported.
        assert await paths_for(store, "walrusa") == ["ideas/date-a.md"]
        assert "invalid date" in opening["ideas/date-a.md"]
        assert "updated" in opening["ideas/date-a.md"]
        # Not UTF-8: searchable by its other words, and reported.
        assert await paths_for(store, "ottera") == ["ideas/latin-a.md"]
        assert "not UTF-8" in opening["ideas/latin-a.md"]
        assert "1500000000 bytes" in opening["ideas/big-a.md"]
        assert "named pipe" in opening["ideas/pipe-a.md"]
        assert "ideas/zero-a.md" in opening
        too_deep = [p for p, why in opening.items() if "64 folders deep" in why]
        assert len(too_deep) == 1 and too_deep[0].count("/") == 64
        assert await paths_for(store, "narwhal") == []
        assert str(deep.relative_to(root)).startswith(too_deep[0])

        # Later: more bad things, and a hand edit of a good note, found by a sync.
        put_bad_things(root / "inbox", "b")
        (root / "ideas" / "good.md").write_text("---\ntitle: Good\n---\nA grey heron.\n")
        report = await store.sync()
        later = reasons(report)
        assert await paths_for(store, "grey heron") == ["ideas/good.md"]
        assert await paths_for(store, "walrusb") == ["inbox/date-b.md"]
        assert await paths_for(store, "otterb") == ["inbox/latin-b.md"]
        assert "invalid date" in later["inbox/date-b.md"]
        assert "1500000000 bytes" in later["inbox/big-b.md"]
        assert "outside the vault" in later["inbox/zero-b.md"]
        assert [p for p, why in later.items() if "64 folders deep" in why] == too_deep
        assert "ideas/good.md" in report.read and "inbox/date-b.md" not in report.read

        # The hand edits were committed; what cannot be a note was not.
        committed = git(root, "ls-files").split("\n")
        assert "inbox/date-b.md" in committed and "inbox/latin-b.md" in committed
        assert not any(name.startswith(("inbox/big", "inbox/pipe", "d/")) for name in committed)


async def test_a_committed_folder_too_deep_for_git_leaves_the_rest_syncing(
    tmp_path: Path, database_url: str
) -> None:
    root = tmp_path / "vault"
    make_vault(root).create("ideas", "Good", "A good heron.")
    nest(root, 101)
    (root / ".git" / "info" / "exclude").write_text("")  # as a person's own git might
    git(root, "add", "-A")
    (root / "ideas" / "pulled.md").write_text("A pulled puffin.\n")
    outside_commit(root, "a pull with a folder 101 deep")

    async with opened_store(root, database_url, keyword_only=True) as store:
        (root / "ideas" / "more.md").write_text("A committed kestrel.\n")
        outside_commit(root, "another pull")
        report = await store.sync()
        assert await paths_for(store, "kestrel") == ["ideas/more.md"]
        assert await paths_for(store, "puffin") == ["ideas/pulled.md"]
        whole = reasons(report)[""]
        assert "nesting too deep" in whole
