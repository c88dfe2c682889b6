"""changed_since: what the incremental sync re-reads after changes inside and outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, make_vault, outside_commit


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    made = make_vault(tmp_path / "vault")
    made.create("ideas", "Kept")
    made.create("ideas", "Edited")
    made.create("people", "gone")
    return made


def test_nothing_changed_since_head(vault: Vault) -> None:
    head = vault.head()
    changed = vault.changed_since(head)
    assert changed.changed == () and changed.deleted == ()
    assert changed.head == head


def test_commits_through_the_vault_are_found(vault: Vault) -> None:
    start = vault.head()
    vault.update("ideas/edited.md", body="new", author=ANN)
    vault.move("people/gone.md", "projects", author=ANN)
    vault.write_attachments([("photo.png", b"png")], author=ANN)
    changed = vault.changed_since(start)
    assert changed.changed == ("ideas/edited.md", "projects/gone.md")
    assert changed.deleted == ("people/gone.md",)
    assert changed.head == vault.head()


def test_hand_edits_new_files_and_deletions_are_found_before_any_commit(vault: Vault) -> None:
    start = vault.head()
    (vault.root / "ideas/edited.md").write_text("edited in Obsidian\n")
    (vault.root / "people/gone.md").unlink()
    (vault.root / "Daily Notes/2026").mkdir(parents=True)
    (vault.root / "Daily Notes/2026/11-20 tea.md").write_text("a new note\n")
    (vault.root / "ideas/notes.txt").write_text("not markdown\n")
    (vault.root / ".obsidian").mkdir()
    (vault.root / ".obsidian/workspace.md").write_text("settings\n")
    changed = vault.changed_since(start)
    assert changed.changed == ("Daily Notes/2026/11-20 tea.md", "ideas/edited.md")
    assert changed.deleted == ("people/gone.md",)
    assert changed.head == start


def test_commits_made_outside_are_found(vault: Vault) -> None:
    start = vault.head()
    (vault.root / "ideas/edited.md").write_text("pulled from another machine\n")
    (vault.root / "people/gone.md").unlink()
    outside_commit(vault.root, "pull")
    changed = vault.changed_since(start)
    assert changed.changed == ("ideas/edited.md",)
    assert changed.deleted == ("people/gone.md",)


def test_without_a_known_commit_every_note_counts(vault: Vault) -> None:
    (vault.root / "loose.md").write_text("untracked\n")
    everything = ("ideas/edited.md", "ideas/kept.md", "loose.md", "people/gone.md")
    assert vault.changed_since(None).changed == everything
    assert vault.changed_since("0" * 40).changed == everything
