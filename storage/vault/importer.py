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

from storage.errors import StorageError, UnsafePath
from storage.vault.gitrepo import GitRepo
from storage.vault.notefile import decode_note, parse_note
from storage.vault.paths import VaultPaths, check_relpath, is_note_path


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
                same = target.is_file() and target.read_bytes() == data
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


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _walk(source: Path, vault_root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Relative paths worth trying, and what was left out on the way."""
    candidates: list[str] = []
    skipped: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(source):
        here = Path(folder)
        rel_folder = here.relative_to(source).as_posix()
        prefix = "" if rel_folder == "." else f"{rel_folder}/"
        kept: list[str] = []
        for name in sorted(dirs):
            # .obsidian, .git and .trash hold settings, history and deleted notes.
            if name.startswith(".") or (here / name).resolve() == vault_root:
                continue
            if (here / name).is_symlink():
                skipped.append((prefix + name, "a symlink"))
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            rel = prefix + name
            if name.startswith("."):
                continue  # hidden files (.DS_Store) are noise, not content
            if (here / name).is_symlink():
                skipped.append((rel, "a symlink"))
                continue
            try:
                check_relpath(rel)
            except UnsafePath as exc:
                skipped.append((rel, exc.reason))
                continue
            candidates.append(rel)
    return candidates, skipped


def _read_candidate(
    source: Path, rel: str, max_note_bytes: int, max_other_bytes: int
) -> tuple[bytes, str | None]:
    full = source.joinpath(*rel.split("/"))
    size = full.stat().st_size
    limit = max_note_bytes if is_note_path(rel) else max_other_bytes
    if size > limit:
        raise _Skip(f"too large ({size} bytes; the limit is {limit})")
    data = full.read_bytes()
    if not is_note_path(rel):
        return data, None
    if not data.strip():
        raise _Skip("empty")
    try:
        text = decode_note(data, rel)
    except StorageError:
        raise _Skip("not UTF-8 text") from None
    return data, parse_note(text).error
