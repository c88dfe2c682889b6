"""Path safety: nothing outside the vault (or inside .git) is ever read or written."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.errors import EntryTooLarge, StorageError, UnsafePath
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, commit_count, make_vault, status

UNSAFE = [
    "../escape.md",
    "ideas/../../escape.md",
    "/etc/passwd.md",
    "C:/notes/x.md",
    "ideas\\x.md",
    "ideas/x\x00.md",
    "ideas/new\nline.md",
    ".git/config.md",
    ".git/hooks/pre-commit.md",
    "ideas/.hidden.md",
    "ideas//x.md",
    "./ideas/x.md",
    "ideas/x.txt",
    "ideas/x.md.sh",
    "",
    ".md",
]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (the vault's .git and files included) with a hash."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def writes(vault: Vault, path: str) -> list[Callable[[], object]]:
    return [
        lambda: vault.write_note(path, "text", operation="digest", author=ANN),
        lambda: vault.update(path, body="text", author=ANN),
        lambda: vault.move(path, "ideas", author=ANN),
        lambda: vault.delete(path, author=ANN),
    ]


@pytest.mark.parametrize("path", UNSAFE)
def test_unsafe_paths_are_refused_and_nothing_is_written(tmp_path: Path, path: str) -> None:
    vault = make_vault(tmp_path / "vault")
    (tmp_path / "escape.md").write_text("outside\n")
    before = snapshot(tmp_path)
    for call in writes(vault, path):
        with pytest.raises(UnsafePath):
            call()
    for read in (vault.read, vault.exists, vault.preview_delete):
        with pytest.raises(UnsafePath):
            read(path)
    assert snapshot(tmp_path) == before


def test_a_symlink_out_of_the_vault_is_never_followed(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: secret\n---\nprivate\n")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(secret, vault.root / "ideas/link.md")
    os.symlink(tmp_path / "elsewhere", vault.root / "outdir")
    before = snapshot(tmp_path)
    commits = commit_count(vault.root)
    with pytest.raises(UnsafePath):
        vault.read("ideas/link.md")
    assert "ideas/link.md" not in vault.note_paths()
    with pytest.raises(UnsafePath):
        vault.update("ideas/link.md", body="overwrite", author=ANN)
    with pytest.raises(UnsafePath):
        vault.write_note("outdir/x.md", "planted", operation="digest", author=ANN)
    assert not (tmp_path / "elsewhere/x.md").exists()
    assert "ideas/link.md" not in vault.changed_since(vault.head()).changed
    assert snapshot(tmp_path) == before
    assert commit_count(vault.root) == commits


def test_a_symlink_inside_the_vault_can_be_read_but_not_written_through(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    vault.create("ideas", "Real", "content")
    os.symlink(vault.root / "ideas/real.md", vault.root / "ideas/alias.md")
    assert vault.read("ideas/alias.md").body == "content"
    with pytest.raises(UnsafePath):
        vault.update("ideas/alias.md", body="x", author=ANN)


def test_a_category_folder_replaced_by_a_symlink_is_refused(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    (tmp_path / "elsewhere").mkdir()
    (vault.root / "ideas/.gitkeep").unlink()
    (vault.root / "ideas").rmdir()
    os.symlink(tmp_path / "elsewhere", vault.root / "ideas")
    with pytest.raises(UnsafePath):
        vault.create("ideas", "Planted")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_oversized_writes_are_refused_whole(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault", max_bytes=300)
    vault.create("ideas", "Small", "ok")
    before = snapshot(tmp_path)
    with pytest.raises(EntryTooLarge):
        vault.update("ideas/small.md", body="x" * 400, author=ANN)
    with pytest.raises(EntryTooLarge):
        vault.write_note("digests/big.md", "x" * 400, operation="digest", author=ANN)
    assert snapshot(tmp_path) == before
    (vault.root / "ideas/huge.md").write_text("y" * 400)
    with pytest.raises(EntryTooLarge):
        vault.read("ideas/huge.md")


SEGMENTS = st.sampled_from(
    ["..", ".", "", "ideas", ".git", "outside", "link", "x.md", "%2e%2e", "~", "\\", "\x00", "é"]
)
PATHS = st.one_of(
    st.lists(SEGMENTS, min_size=1, max_size=6).map("/".join),
    st.lists(SEGMENTS, min_size=1, max_size=6).map(lambda parts: "/" + "/".join(parts)),
    st.text(max_size=40),
)


@settings(max_examples=60, deadline=None)
@given(path=PATHS, title=st.text(max_size=30))
def test_random_paths_never_write_outside_the_vault(path: str, title: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        vault = make_vault(base / "vault")
        (base / "outside").mkdir()
        (base / "outside/x.md").write_text("outside\n")
        os.symlink(base / "outside", vault.root / "link")
        outside_before = snapshot(base / "outside")
        git_before = commit_count(vault.root)
        attempts: list[Callable[[], object]] = [
            *writes(vault, path),
            lambda: vault.write_attachments([(path, b"data")], author=ANN),
            lambda: vault.create("ideas", title or path, "body"),
        ]
        for attempt in attempts:
            head = vault.head()
            try:
                written = attempt()
            except StorageError:
                assert vault.head() == head  # refused: nothing committed
                continue
            for rel in written.change.paths:  # type: ignore[attr-defined]
                target = (vault.root / rel).resolve()
                assert vault.root in target.parents
                assert ".git" not in Path(rel).parts
        assert snapshot(base / "outside") == outside_before
        assert not (base / "vault/.git/x.md").exists()
        assert commit_count(vault.root) >= git_before
        assert set(status(vault.root).splitlines()) <= {"?? link"}
