"""History and undo, checked against what git itself records."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from storage.errors import ChangeNotFound, NothingToChange, StorageError, UndoConflict
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import (
    ANN,
    commit_count,
    git,
    make_vault,
    outside_commit,
    status,
)


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "vault")


def test_history_is_newest_first_with_operations_and_paths(vault: Vault) -> None:
    vault.create("ideas", "A")
    vault.create("ideas", "B", author=ANN)
    vault.update("ideas/a.md", body="changed", author=ANN)
    vault.delete("ideas/b.md", author=ANN)
    changes = vault.history()
    assert [c.operation for c in changes] == ["delete", "update", "create", "create", "init"]
    assert changes[0].paths == ("ideas/b.md",)
    assert changes[0].author == "Ann Example"
    assert changes[0].commit == git(vault.root, "rev-parse", "HEAD").strip()
    assert changes[0].when.tzinfo is not None
    assert [c.operation for c in vault.history(limit=2)] == ["delete", "update"]
    assert [c.operation for c in vault.history("ideas/a.md")] == ["update", "create"]
    # A deleted note still has its history.
    assert [c.operation for c in vault.history("ideas/b.md")] == ["delete", "create"]


def test_each_write_names_the_commit_before_it_as_git_does(vault: Vault) -> None:
    first = vault.create("ideas", "A").change
    second = vault.update("ideas/a.md", body="changed", author=ANN).change
    assert first.parent == git(vault.root, "rev-parse", f"{first.commit}^").strip()
    assert second.parent == first.commit
    assert vault.history(limit=2) == [second, first]  # the history tells the same


def test_commits_made_outside_the_bot_are_edits(vault: Vault) -> None:
    vault.create("ideas", "A")
    (vault.root / "ideas/a.md").write_text("rewritten in Obsidian\n")
    outside_commit(vault.root, "vault backup: 2026-11-20")
    latest = vault.history(limit=1)[0]
    assert latest.operation == "edit"
    assert latest.paths == ("ideas/a.md",)
    assert latest.author == "Hand"


def test_undo_of_a_create_removes_the_note(vault: Vault) -> None:
    created = vault.create("ideas", "Oops", "typo")
    written = vault.undo(created.change.commit, author=ANN)
    assert not (vault.root / "ideas/oops.md").exists()
    subject = git(vault.root, "log", "-1", "--format=%s").strip()
    assert subject == f"undo {created.change.commit[:10]} (create ideas/oops.md)"
    assert written.change.operation == "undo"
    assert written.change.paths == ("ideas/oops.md",)
    assert written.entry is None
    assert status(vault.root) == ""


def test_undo_of_an_update_and_of_a_delete_restore_the_file(vault: Vault) -> None:
    vault.create("projects", "Roof", "fix it", {"status": "active"})
    original = (vault.root / "projects/roof.md").read_bytes()
    updated = vault.update("projects/roof.md", fields={"status": "done"}, author=ANN)
    restored = vault.undo(updated.change.commit, author=ANN)
    assert (vault.root / "projects/roof.md").read_bytes() == original
    assert restored.entry is not None and restored.entry.status == "active"
    deleted = vault.delete("projects/roof.md", author=ANN)
    vault.undo(deleted.change.commit, author=ANN)
    assert (vault.root / "projects/roof.md").read_bytes() == original
    assert status(vault.root) == ""


def test_undo_of_a_move_moves_it_back(vault: Vault) -> None:
    vault.create("ideas", "Shed")
    original = (vault.root / "ideas/shed.md").read_bytes()
    moved = vault.move("ideas/shed.md", "projects", author=ANN)
    preview = vault.preview_undo(moved.change.commit)
    assert "--- a/projects/shed.md" in preview.diff and "+++ b/ideas/shed.md" in preview.diff
    assert preview.content_hash is not None
    vault.undo(moved.change.commit, author=ANN, expected_hash=preview.content_hash)
    assert (vault.root / "ideas/shed.md").read_bytes() == original
    assert not (vault.root / "projects/shed.md").exists()


def test_undo_of_an_older_change_that_a_later_one_overlaps_is_a_conflict(vault: Vault) -> None:
    vault.create("projects", "Deck", "build it", {"status": "active"})
    first = vault.update("projects/deck.md", fields={"status": "paused"}, author=ANN)
    vault.update("projects/deck.md", fields={"status": "done"}, author=ANN)
    on_disk = (vault.root / "projects/deck.md").read_bytes()
    head = vault.head()
    with pytest.raises(UndoConflict) as caught:
        vault.undo(first.change.commit, author=ANN)
    assert caught.value.paths == ("projects/deck.md",)
    with pytest.raises(UndoConflict):
        vault.preview_undo(first.change.commit)
    assert vault.head() == head
    assert (vault.root / "projects/deck.md").read_bytes() == on_disk


def test_undo_merges_a_later_change_to_another_part_of_the_file(vault: Vault) -> None:
    lines = "\n".join(f"line {n}" for n in range(30))
    (vault.root / "ideas/long.md").write_text(lines + "\n")
    outside_commit(vault.root, "add long note")
    (vault.root / "ideas/long.md").write_text(lines.replace("line 2\n", "line two\n") + "\n")
    outside_commit(vault.root, "edit the top")
    top_edit = git(vault.root, "rev-parse", "HEAD").strip()
    (vault.root / "ideas/long.md").write_text(
        lines.replace("line 2\n", "line two\n").replace("line 27", "line twenty-seven") + "\n"
    )
    outside_commit(vault.root, "edit the bottom")
    vault.undo(top_edit, author=ANN)
    text = (vault.root / "ideas/long.md").read_text()
    assert "line 2\n" in text and "line twenty-seven" in text


def test_undo_never_overwrites_uncommitted_hand_edits(vault: Vault) -> None:
    created = vault.create("ideas", "Draft", "first")
    (vault.root / "ideas/draft.md").write_text("typed by hand, not committed\n")
    with pytest.raises(UndoConflict):
        vault.undo(created.change.commit, author=ANN)
    assert (vault.root / "ideas/draft.md").read_text() == "typed by hand, not committed\n"


def test_undo_of_unknown_first_or_already_undone_changes(vault: Vault) -> None:
    commits = commit_count(vault.root)
    for ref in ("deadbeef", "0" * 40, "not-a-sha", ""):
        with pytest.raises(ChangeNotFound):
            vault.undo(ref, author=ANN)
    first = git(vault.root, "rev-list", "--max-parents=0", "HEAD").strip()
    with pytest.raises(StorageError, match="first commit"):
        vault.undo(first, author=ANN)
    created = vault.create("ideas", "Twice")
    vault.undo(created.change.commit, author=ANN)
    with pytest.raises(NothingToChange):
        vault.undo(created.change.commit[:12], author=ANN)
    assert commit_count(vault.root) == commits + 2


def test_undo_of_an_undo_brings_the_change_back(vault: Vault) -> None:
    created = vault.create("ideas", "Back")
    undone = vault.undo(created.change.commit, author=ANN)
    redone = vault.undo(undone.change.commit, author=ANN)
    assert redone.entry is not None and redone.entry.title == "Back"
    assert (vault.root / "ideas/back.md").exists()


def test_history_follows_a_rename_made_outside(vault: Vault) -> None:
    vault.create("ideas", "Old name", "a body long enough for git to see the rename")
    git(vault.root, "mv", "ideas/old-name.md", "ideas/new-name.md")
    outside_commit(vault.root, "rename in Obsidian")
    assert [c.operation for c in vault.history("ideas/new-name.md")] == ["edit", "create"]


def test_undo_of_an_older_change_is_not_stopped_by_the_updated_stamp(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each change stamps `updated:` a second later, as changes made apart would.
    stamps = iter(datetime(2026, 11, 23, 9, 0, s, tzinfo=UTC) for s in range(60))
    monkeypatch.setattr("storage.vault.schema.now_utc", lambda: next(stamps))
    body = "\n".join(f"- [ ] task {n}" for n in range(12))
    vault.create("admin", "List", body)
    ticked = body.replace("- [ ] task 1\n", "- [x] task 1\n")
    first = vault.update("admin/list.md", body=ticked, author=ANN)
    vault.update("admin/list.md", body=ticked.replace("[ ] task 10", "[x] task 10"), author=ANN)
    vault.undo(first.change.commit, author=ANN)
    text = (vault.root / "admin/list.md").read_text()
    assert "- [ ] task 1\n" in text and "- [x] task 10\n" in text
    assert "updated: 2026-11-23T09:00:02\n" in text  # the later change's stamp
    # A real overlap is still refused.
    second = vault.update("admin/list.md", body=text.split("---\n", 2)[2] + "\nA", author=ANN)
    vault.update("admin/list.md", body=second.entry.body + "B" if second.entry else "", author=ANN)
    with pytest.raises(UndoConflict):
        vault.undo(second.change.commit, author=ANN)


def test_a_hand_edit_recorded_before_the_bots_change_is_the_persons_not_the_bots(
    vault: Vault,
) -> None:
    # A hand edit the bot finds uncommitted when it changes the note (a timeline line
    # landing before the watcher's sync) is committed first: as a hand edit, by the same
    # author a sync gives hand edits, not as the bot's own work.
    vault.create("projects", "Kite")
    (vault.root / "projects/kite.md").write_text("---\ntitle: Kite\n---\nString and a spool.\n")
    vault.update("projects/kite.md", body="String and a spool.\n\nA line.", author=ANN)
    log = git(vault.root, "log", "--format=%ae %s", "-3").splitlines()
    assert log[0].endswith("update projects/kite.md")
    assert log[1] == "outside@brainbot.local edit projects/kite.md"
