"""Several notes' bodies changed in one commit (a capture's timeline lines): all land
together, a hand edit is kept as its own commit first, and nothing to change makes
no commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.entry import Entry
from storage.errors import NothingToChange
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, commit_count, git, make_vault, status


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "vault")


def _line(entry: Entry) -> str:
    return entry.body + "\n- 2026-11-25 [[idea]]"


def test_several_notes_change_in_one_commit(vault: Vault) -> None:
    a = vault.create("people", "Sarah Kim", "About Sarah.", author=ANN).entry
    b = vault.create("projects", "Website relaunch", "Ship it.", author=ANN).entry
    assert a is not None and b is not None
    before = commit_count(vault.root)
    written = vault.update_bodies(
        {a.path: _line, b.path: _line}, operation="timeline", author=ANN, source={"event": "t:1"}
    )
    assert commit_count(vault.root) == before + 1
    assert sorted(written.change.paths) == sorted([a.path, b.path])
    subject = git(vault.root, "log", "-1", "--format=%s").strip()
    assert subject.startswith("timeline ") and a.path in subject
    assert vault.read(a.path).body.endswith("[[idea]]")
    assert vault.read(b.path).body.endswith("[[idea]]")
    assert status(vault.root) == ""


def test_a_hand_edit_is_kept_and_nothing_to_change_makes_no_commit(vault: Vault) -> None:
    a = vault.create("people", "Sarah Kim", "About Sarah.", author=ANN).entry
    assert a is not None
    full = vault.root / a.path
    full.write_text(full.read_text(encoding="utf-8") + "\nMet at the fair.\n", encoding="utf-8")
    vault.update_bodies({a.path: _line}, operation="timeline", author=ANN)
    log = git(vault.root, "log", "--format=%s").splitlines()
    assert log[0].startswith("timeline ") and log[1].startswith("edit ")
    assert "Met at the fair." in vault.read(a.path).body
    before = commit_count(vault.root)
    with pytest.raises(NothingToChange):
        vault.update_bodies({a.path: lambda entry: None}, operation="timeline", author=ANN)
    assert commit_count(vault.root) == before
