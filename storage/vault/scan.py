"""Finding notes on disk, and what changed since a commit (for the incremental sync).

Walks are iterative (a folder 1,000 levels deep must not exhaust Python's stack) and
stop at MAX_FOLDERS; what they leave out that looks like a note (a folder nested too
deep, a named pipe, a symlink out of the vault) is reported as skipped, with why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from storage.entry import ChangedPaths
from storage.errors import ChangeNotFound, StorageError, UnsafePath
from storage.vault.files import read_regular
from storage.vault.gitrepo import GitRepo
from storage.vault.paths import (
    MAX_FOLDERS,
    TOO_DEEP,
    VaultPaths,
    check_relpath,
    is_attachment,
    is_note_path,
    shown_path,
)


@dataclass(slots=True)
class NoteScan:
    """Notes found by a walk, vault-relative, and what was left out: (path, reason)."""

    notes: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def walk_notes(paths: VaultPaths, folder: Path) -> list[str]:
    """Every note under `folder`, vault-relative and sorted; hidden folders and
    symlinks that lead out of the vault are left out."""
    return scan_notes(paths, folder).notes


def scan_notes(paths: VaultPaths, folder: Path) -> NoteScan:
    """Every note under `folder` (sorted) and what looked like one but was left out."""
    found = NoteScan()
    pending = [folder]
    while pending:
        here = pending.pop()
        try:
            items = list(os.scandir(here))
        except OSError:
            continue
        depth = len(paths.relative(here).split("/")) if here != paths.root else 0
        for item in items:
            if item.name.startswith("."):
                continue
            _sort(paths, item, depth, found, pending)
    found.notes.sort()
    found.skipped.sort()
    return found


def _sort(
    paths: VaultPaths, item: os.DirEntry[str], depth: int, found: NoteScan, pending: list[Path]
) -> None:
    """Put one folder entry where it belongs: a note, a folder to walk, or skipped."""
    full = Path(item.path)
    if item.is_symlink():
        if not is_note_path(item.name):
            return  # symlinked folders are not followed; other files are no notes
        # Rare, so the full check (realpath) is paid only here.
        try:
            rel, target = paths.resolve(paths.relative(full))
        except UnsafePath as exc:
            found.skipped.append((exc.path, exc.reason))
            return
        if target.is_file():
            found.notes.append(rel)
        else:
            found.skipped.append((rel, "a symlink to something that is not a regular file"))
    elif item.is_dir():
        if depth >= MAX_FOLDERS:
            found.skipped.append((paths.relative(full), TOO_DEEP))
        elif depth or not is_attachment(item.name):  # attachments are no notes
            pending.append(full)
    elif is_note_path(item.name):
        try:
            rel = check_relpath(paths.relative(full))
        except UnsafePath as exc:
            found.skipped.append((exc.path, exc.reason))  # a name that is not UTF-8
            return
        if item.is_file():
            found.notes.append(rel)
        else:
            found.skipped.append((rel, "not a regular file (a named pipe, device or socket)"))


def changed_since(git: GitRepo, paths: VaultPaths, commit: str | None) -> ChangedPaths:
    """Notes changed or deleted since `commit`: a tree diff to HEAD (its cost follows
    the change) plus `git status` for hand edits and new files. With None, or a
    commit no longer in the repository, every note counts as changed. Note paths
    that cannot be used (too deep, a symlink out of the vault) are in `skipped`."""
    head = git.head_commit()
    head_id = None if head is None else str(head.id)
    try:
        old = git.find_commit(commit) if commit is not None else None
    except ChangeNotFound:
        old = None
    if old is None:
        scan = scan_notes(paths, paths.root)
        return ChangedPaths(tuple(scan.notes), (), head_id, tuple(scan.skipped))
    touched = {change.path for change in git.diff(old.tree, head.tree if head else None)}
    tree = git.uncommitted()
    changed: list[str] = []
    deleted: list[str] = []
    skipped = [(rel, TOO_DEEP) for rel in sorted(tree.too_deep)]
    if tree.problem is not None:
        skipped.append(("", tree.problem))
    for rel in sorted(touched | tree.present | tree.gone):
        try:
            _, full = paths.resolve(rel)
        except UnsafePath as exc:
            if _looks_like_a_note(rel):
                skipped.append((shown_path(rel), exc.reason))
            continue  # not a note, hidden, or leading out of the vault
        (changed if full.is_file() else deleted).append(rel)
    return ChangedPaths(tuple(changed), tuple(deleted), head_id, tuple(skipped))


def _looks_like_a_note(rel: str) -> bool:
    """A `.md` path outside hidden folders: worth telling the owner why it was left out."""
    return is_note_path(rel) and not any(part.startswith(".") for part in rel.split("/"))


def uncommitted_notes(git: GitRepo, paths: VaultPaths, max_bytes: int) -> dict[str, bytes | None]:
    """Notes changed, added (their bytes) or deleted (None) in the working tree and not
    committed; files that are no notes (hidden, app settings, pipes, devices) and
    oversized notes are left out (the sync that follows reports them)."""
    tree = git.uncommitted()
    files: dict[str, bytes | None] = {}
    for rel in sorted(tree.present | tree.gone):
        try:
            _, full = paths.resolve(rel)
        except UnsafePath:
            continue  # not a note: hidden, app settings, other files
        if os.path.lexists(full):
            try:
                files[rel] = read_regular(full, rel, max_bytes, paths.root)
            except (StorageError, OSError):
                continue  # too large, or not a regular file: never committed
        elif rel in tree.gone:
            files[rel] = None
    return files
