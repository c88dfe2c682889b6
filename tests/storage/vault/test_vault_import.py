"""Importing an existing Obsidian-style folder as one commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from storage.errors import StorageError
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import commit_count, git, make_vault, status

NOTES = {
    "Projects/2026/Q1 plan.md": (
        "---\ntags: [plan]\nstatus: active\n---\n# Q1 plan\n\nSee [[Café über]].\n"
    ),
    "Notizen/Café über.md": (
        "Links back to [[Q1 plan|the plan]] and [x](../Projects/2026/Q1%20plan.md)\n"
    ),
    "日本/メモ.md": "# メモ\n\n日本語のメモ\n",
    "top level.md": "no frontmatter at all\n",
    "Broken/bad yaml.md": "---\ntitle: [oops\n---\nbody kept\n",
}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "My Obsidian"
    for rel, text in NOTES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    (src / "latin1.md").write_bytes("caf\xe9\n".encode("latin-1"))
    (src / "empty.md").write_bytes(b"")
    (src / "blank.md").write_text("  \n\n")
    (src / "huge.md").write_text("x" * 2000)
    (src / "images").mkdir()
    (src / "images/pic.png").write_bytes(b"\x89PNG small")
    (src / "images/big.pdf").write_bytes(b"%" * 5000)
    (src / ".obsidian").mkdir()
    (src / ".obsidian/app.json").write_text("{}")
    (src / ".trash").mkdir()
    (src / ".trash/old.md").write_text("deleted note\n")
    (src / ".DS_Store").write_bytes(b"\x00")
    os.symlink(tmp_path, src / "escape")
    os.symlink(tmp_path / "elsewhere.md", src / "linked.md")
    return src


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "vault", max_bytes=1000, max_attachment_bytes=1000)


def test_import_copies_notes_at_their_paths_in_one_commit(vault: Vault, source: Path) -> None:
    calls: list[tuple[int, int]] = []
    result = vault.import_tree(source, progress=lambda done, total: calls.append((done, total)))

    assert sorted(result.imported) == sorted([*NOTES, "latin1.md"])
    for rel, text in NOTES.items():
        assert (vault.root / rel).read_text(encoding="utf-8") == text  # kept byte for byte
    assert result.copied == ("images/pic.png",)
    skipped = dict(result.skipped)
    assert (vault.root / "latin1.md").read_bytes() == "caf\xe9\n".encode("latin-1")
    assert skipped["empty.md"] == "empty" and skipped["blank.md"] == "empty"
    assert skipped["huge.md"].startswith("too large")
    assert skipped["images/big.pdf"].startswith("too large")
    assert skipped["escape"] == "a symlink" and skipped["linked.md"] == "a symlink"
    assert not any(".obsidian" in p or ".trash" in p or "DS_Store" in p for p in skipped)
    assert sorted(rel for rel, _ in result.warnings) == ["Broken/bad yaml.md", "latin1.md"]

    assert result.written is not None
    assert result.written.change.operation == "import"
    assert commit_count(vault.root) == 2
    subject = git(vault.root, "log", "-1", "--format=%s").strip()
    assert subject == "import 6 notes from My Obsidian"
    assert status(vault.root) == ""
    assert calls[-1] == (calls[-1][1], calls[-1][1])
    assert [done for done, _ in calls] == list(range(1, len(calls) + 1))


def test_imported_notes_read_like_any_other(vault: Vault, source: Path) -> None:
    vault.import_tree(source)
    plan = vault.read("Projects/2026/Q1 plan.md")
    assert plan.category == "Projects" and plan.title == "Q1 plan"
    assert plan.status == "active" and plan.tags == ("plan",)
    assert "[[Café über]]" in plan.body
    assert vault.read("日本/メモ.md").title == "メモ"
    assert vault.read("top level.md").category == ""
    broken = vault.read("Broken/bad yaml.md")
    assert broken.frontmatter_error is not None and broken.body == "body kept"
    assert len(vault.note_paths()) == 6


def test_importing_again_overwrites_nothing(vault: Vault, source: Path) -> None:
    vault.import_tree(source)
    (source / "top level.md").write_text("changed in the source\n")
    (source / "new one.md").write_text("fresh\n")
    again = vault.import_tree(source)
    assert again.imported == ("new one.md",)
    skipped = dict(again.skipped)
    assert skipped["Projects/2026/Q1 plan.md"] == "already in the vault"
    assert skipped["top level.md"] == "a different file has this path"
    assert (vault.root / "top level.md").read_text() == NOTES["top level.md"]
    assert vault.import_tree(source).written is None
    assert commit_count(vault.root) == 3


def test_import_refuses_a_folder_inside_the_vault(vault: Vault) -> None:
    with pytest.raises(StorageError):
        vault.import_tree(vault.root / "ideas")
    with pytest.raises(StorageError):
        vault.import_tree(vault.root / "missing")


def test_a_vault_inside_the_source_is_not_imported_into_itself(tmp_path: Path) -> None:
    src = tmp_path / "notes"
    (src / "a").mkdir(parents=True)
    (src / "a/one.md").write_text("one\n")
    vault = make_vault(src / "brain")
    vault.create("ideas", "Inside")
    result = vault.import_tree(src)
    assert result.imported == ("a/one.md",)
