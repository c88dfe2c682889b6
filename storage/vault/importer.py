"""Copying an existing folder of Markdown (an Obsidian vault) into the vault.

Every file is judged on its own and any problem is reported, never raised, so an
import never stops half-way. Files are turned into git blobs one by one (nothing in
the working tree changes yet); the caller then writes them all as a single commit,
which lands whole or not at all (storage.vault.journal).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from storage.errors import EntryTooLarge, NotAFile, StorageError, UnsafePath
from storage.vault.files import read_regular
from storage.vault.gitrepo import GitRepo
from storage.vault.notefile import parse_note, read_text
from storage.vault.paths import MAX_FOLDERS, TOO_DEEP, VaultPaths, check_relpath, is_note_path


@dataclass(slots=True)
class CollectedTree:
    """What an import found to copy: blobs in the object store, not in the working tree."""

    blobs: dict[str, pygit2.Oid] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    copied: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[tuple[str, str], ...] = ()


def collect_tree(
    src: Path,
    paths: VaultPaths,
    git: GitRepo,
    *,
    max_note_bytes: int,
    max_other_bytes: int,
    progress: Callable[[int, int], None] | None = None,
) -> CollectedTree:
    """The importable files of `src`, as blobs for their relative paths in the vault."""
    source = src.resolve()
    if not source.is_dir():
        raise StorageError(f"{src.name!r} is not a folder")
    if source == paths.root or paths.root in source.parents:
        raise StorageError("the folder to import is inside the vault already")
    candidates, skipped = _walk(source, paths.root)
    notes: list[str] = []
    copied: list[str] = []
    warnings: list[tuple[str, str]] = []
    blobs: dict[str, pygit2.Oid] = {}
    for done, rel in enumerate(candidates, start=1):
        try:
            data, warning = _read_candidate(source, rel, max_note_bytes, max_other_bytes)
            _, target = paths.resolve(rel, note=is_note_path(rel), for_write=True)
            if os.path.lexists(target):
                same = _same_bytes(target, rel, data)
                raise _Skip("already in the vault" if same else "a different file has this path")
            blobs[rel] = git.blob(data)
            (notes if is_note_path(rel) else copied).append(rel)
            if warning:
                warnings.append((rel, warning))
        except _Skip as skip:
            skipped.append((rel, skip.reason))
        except UnsafePath as exc:
            skipped.append((rel, exc.reason))
        except (OSError, StorageError) as exc:
            skipped.append((rel, str(exc)))
        if progress is not None:
            progress(done, len(candidates))
    return CollectedTree(blobs, tuple(notes), tuple(copied), tuple(skipped), tuple(warnings))


def _same_bytes(target: Path, rel: str, data: bytes) -> bool:
    try:
        return read_regular(target, rel, len(data)) == data
    except StorageError:
        return False


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _walk(source: Path, vault_root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Relative paths worth trying, and what was left out on the way. Iterative, and
    no deeper than MAX_FOLDERS: a folder 1,000 levels deep is reported, not followed."""
    candidates: list[str] = []
    skipped: list[tuple[str, str]] = []
    pending = [(source, "", 0)]
    while pending:
        here, prefix, depth = pending.pop()
        try:
            items = sorted(os.scandir(here), key=lambda item: item.name)
        except OSError as exc:
            skipped.append((prefix.rstrip("/") or ".", f"cannot be listed ({exc.strerror})"))
            continue
        folders: list[tuple[Path, str, int]] = []
        for item in items:
            rel = prefix + item.name
            # .obsidian, .git and .trash hold settings, history and deleted notes;
            # hidden files (.DS_Store) are noise, not content.
            if item.name.startswith("."):
                continue
            if item.is_symlink():
                skipped.append((rel, "a symlink"))
            elif item.is_dir():
                if Path(item.path).resolve() == vault_root:
                    continue
                if depth >= MAX_FOLDERS:
                    skipped.append((rel, TOO_DEEP))
                else:
                    folders.append((Path(item.path), f"{rel}/", depth + 1))
            elif not item.is_file():
                skipped.append((rel, "not a regular file (a named pipe, device or socket)"))
            else:
                try:
                    candidates.append(check_relpath(rel))
                except UnsafePath as exc:
                    skipped.append((rel, exc.reason))
        pending.extend(reversed(folders))
    return candidates, skipped


def _read_candidate(
    source: Path, rel: str, max_note_bytes: int, max_other_bytes: int
) -> tuple[bytes, str | None]:
    limit = max_note_bytes if is_note_path(rel) else max_other_bytes
    try:
        data = read_regular(source.joinpath(*rel.split("/")), rel, limit)
    except EntryTooLarge as exc:
        raise _Skip(f"too large ({exc.size} bytes; the limit is {limit})") from None
    except NotAFile as exc:
        raise _Skip(f"not a regular file ({exc.kind})") from None
    if not is_note_path(rel):
        return data, None
    if not data.strip():
        raise _Skip("empty")
    text, encoding_error = read_text(data, rel)
    if encoding_error is not None:
        return data, "not UTF-8: kept byte for byte, searchable with the bad bytes left out"
    return data, parse_note(text).error
