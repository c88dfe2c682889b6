"""Finding notes on disk, and what changed since a commit (for the incremental sync)."""

from __future__ import annotations

import os
from pathlib import Path

from storage.entry import ChangedPaths
from storage.errors import ChangeNotFound, UnsafePath
from storage.vault.gitrepo import GitRepo
from storage.vault.paths import VaultPaths, is_note_path


def walk_notes(paths: VaultPaths, folder: Path) -> list[str]:
    """Every note under `folder`, vault-relative and sorted; hidden folders and
    symlinks that lead out of the vault are left out."""
    found: list[str] = []
    _walk(paths, folder, found)
    return sorted(found)


def _walk(paths: VaultPaths, folder: Path, found: list[str]) -> None:
    try:
        items = list(os.scandir(folder))
    except OSError:
        return
    for item in items:
        if item.name.startswith("."):
            continue
        if item.is_symlink():
            # Rare, so the full check (realpath) is paid only here.
            try:
                rel, full = paths.resolve(paths.relative(Path(item.path)))
            except UnsafePath:
                continue
            if full.is_file():
                found.append(rel)
        elif item.is_dir():
            _walk(paths, Path(item.path), found)
        elif item.is_file() and is_note_path(item.name):
            found.append(paths.relative(Path(item.path)))


def changed_since(git: GitRepo, paths: VaultPaths, commit: str | None) -> ChangedPaths:
    """Notes changed or deleted since `commit`: a tree diff to HEAD (its cost follows
    the change) plus `git status` for hand edits and new files. With None, or a
    commit no longer in the repository, every note counts as changed."""
    head = git.head_commit()
    head_id = None if head is None else str(head.id)
    try:
        old = git.find_commit(commit) if commit is not None else None
    except ChangeNotFound:
        old = None
    if old is None:
        return ChangedPaths(tuple(walk_notes(paths, paths.root)), (), head_id)
    touched = {change.path for change in git.diff(old.tree, head.tree if head else None)}
    present, gone = git.uncommitted()
    changed: list[str] = []
    deleted: list[str] = []
    for rel in sorted(touched | present | gone):
        try:
            _, full = paths.resolve(rel)
        except UnsafePath:
            continue  # not a note, hidden, or leading out of the vault
        (changed if full.is_file() else deleted).append(rel)
    return ChangedPaths(tuple(changed), tuple(deleted), head_id)


def uncommitted_notes(git: GitRepo, paths: VaultPaths, max_bytes: int) -> dict[str, bytes | None]:
    """Notes changed, added (their bytes) or deleted (None) in the working tree and not
    committed; files that are no notes (hidden, app settings) and oversized notes are
    left out."""
    present, gone = git.uncommitted()
    files: dict[str, bytes | None] = {}
    for rel in sorted(present | gone):
        try:
            _, full = paths.resolve(rel)
        except UnsafePath:
            continue  # not a note: hidden, app settings, other files
        if full.is_file():
            data = full.read_bytes()
            if len(data) <= max_bytes:
                files[rel] = data
        elif rel in gone:
            files[rel] = None
    return files
