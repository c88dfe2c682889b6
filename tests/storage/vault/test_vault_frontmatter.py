"""Hand-edited notes: broken frontmatter, odd encodings, and previews of changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.errors import BrokenFrontmatter, StorageError
from storage.text.dates import frontmatter_time as parse_timestamp
from storage.vault.notefile import parse_note, render_note
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, commit_count, make_vault, outside_commit, status

BROKEN = "---\ntitle: [unclosed\ntags: a: b\n---\n\n# Still readable\n\nThe body survives.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "vault")


def put(vault: Vault, rel: str, content: str | bytes) -> None:
    full = vault.root / rel
    full.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        full.write_text(content, encoding="utf-8")
    else:
        full.write_bytes(content)
    outside_commit(vault.root, f"add {rel}")


def test_broken_yaml_is_read_with_the_body_and_the_problem(vault: Vault) -> None:
    put(vault, "ideas/broken.md", BROKEN)
    entry = vault.read("ideas/broken.md")
    assert entry.fields == {}
    assert entry.body == "# Still readable\n\nThe body survives."
    assert entry.title == "Still readable"
    assert entry.frontmatter_error is not None and "YAML" in entry.frontmatter_error
    assert [e.path for e in vault.list("ideas")] == ["ideas/broken.md"]


def test_yaml_that_is_not_a_mapping_or_never_closes_is_reported(vault: Vault) -> None:
    put(vault, "ideas/list.md", "---\n- a\n- b\n---\nbody\n")
    entry = vault.read("ideas/list.md")
    assert entry.fields == {} and entry.body == "body"
    assert entry.frontmatter_error is not None and "list" in entry.frontmatter_error
    put(vault, "ideas/open.md", "---\ntitle: x\n\nno closing fence\n")
    entry = vault.read("ideas/open.md")
    assert entry.fields == {} and entry.body == "---\ntitle: x\n\nno closing fence"
    assert entry.frontmatter_error is not None


def test_broken_frontmatter_keeps_its_block_when_the_body_changes(vault: Vault) -> None:
    put(vault, "ideas/broken.md", BROKEN)
    with pytest.raises(BrokenFrontmatter):
        vault.update("ideas/broken.md", fields={"status": "x"}, author=ANN)
    vault.update("ideas/broken.md", body="New body.", author=ANN)
    text = (vault.root / "ideas/broken.md").read_text()
    assert text == "---\ntitle: [unclosed\ntags: a: b\n---\n\nNew body.\n"
    moved = vault.move("ideas/broken.md", "projects", author=ANN)
    assert (vault.root / "projects/broken.md").read_text() == text
    assert moved.entry is not None and moved.entry.frontmatter_error is not None
    vault.delete("projects/broken.md", author=ANN)
    assert status(vault.root) == ""


def test_a_note_that_is_not_utf8_is_read_with_replacement_and_never_rewritten(
    vault: Vault,
) -> None:
    put(vault, "ideas/latin1.md", "---\ntitle: Café\n---\n\nnaïve\n".encode("latin-1"))
    entry = vault.read("ideas/latin1.md")
    assert entry.body == "na\ufffdve" and entry.title == "Caf\ufffd"
    assert entry.encoding_error is not None and "not UTF-8" in entry.encoding_error
    assert [e.path for e in vault.list("ideas")] == ["ideas/latin1.md"]
    # A lossy reading never reaches the file: changing it is refused.
    with pytest.raises(StorageError, match="not UTF-8"):
        vault.update("ideas/latin1.md", body="new", author=ANN)
    # It can still be moved (byte for byte) and deleted.
    vault.move("ideas/latin1.md", "admin", author=ANN)
    assert (
        vault.root / "admin/latin1.md"
    ).read_bytes() == "---\ntitle: Café\n---\n\nnaïve\n".encode("latin-1")
    vault.delete("admin/latin1.md", author=ANN)


def test_windows_line_endings_and_a_byte_order_mark_parse() -> None:
    parsed = parse_note("\ufeff---\r\ntitle: Win\r\n---\r\n\r\nline one\r\nline two\r\n")
    assert parsed.fields == {"title": "Win"}
    assert parsed.error is None
    assert parsed.body == "line one\r\nline two"


def test_timestamps_parse_whatever_form_they_were_written_in() -> None:
    one = parse_timestamp("2026-11-20T10:00:00+01:00")
    assert one is not None and one.isoformat() == "2026-11-20T09:00:00+00:00"
    naive = parse_timestamp("2026-11-20 10:00")
    assert naive is not None and naive.utcoffset() is not None
    assert parse_timestamp(parse_note("---\nd: 2026-11-20\n---\n").fields["d"]) is not None
    assert parse_timestamp("yesterday") is None and parse_timestamp(3) is None


def test_previews_show_a_git_style_diff_and_the_hash(vault: Vault) -> None:
    created = vault.create("projects", "Fence", "paint it", {"status": "active"})
    assert created.entry is not None
    commits = commit_count(vault.root)
    update = vault.preview_update("projects/fence.md", fields={"status": "done"}, body="paint")
    assert update.content_hash == created.entry.content_hash
    assert update.diff.startswith("--- a/projects/fence.md\n+++ b/projects/fence.md\n")
    # (`updated` changes too when the clock passes a second in between)
    assert "\n-status: active\n" in update.diff and "\n+status: done\n" in update.diff
    assert "-paint it\n+paint\n" in update.diff
    move = vault.preview_move("projects/fence.md", "ideas")
    assert move.diff.startswith("--- a/projects/fence.md\n+++ b/ideas/fence.md\n")
    assert "null" not in move.diff  # no empty property is written
    delete = vault.preview_delete("projects/fence.md")
    assert delete.diff.startswith("--- a/projects/fence.md\n+++ /dev/null\n")
    assert delete.content_hash == created.entry.content_hash
    assert commit_count(vault.root) == commits  # previews write nothing
    vault.update(
        "projects/fence.md",
        fields={"status": "done"},
        expected_hash=update.content_hash,
        author=ANN,
    )


@pytest.mark.parametrize("value", ["\x85\U00010000", "🍅\x85", "a\u2028b", "x\u2029"])
def test_yaml_line_break_characters_round_trip(value: str) -> None:
    """Written as UTF-8 (for emoji), NEL and the Unicode line separators would come
    back as spaces; they are kept."""
    assert parse_note(render_note({"a": value}, "")).fields["a"] == value
