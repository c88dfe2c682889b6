"""Merging a remote's commit into the vault, losing nothing (mixed into Vault).

git's three-way merge (libgit2, renames followed) does the work; what it cannot
decide is settled here, always keeping both sides:
- the same note changed on both sides: merged field by field and line by line
  (storage.vault.note_merge); when the same lines or field differ, the note keeps
  the vault's version and a conflict copy beside it keeps the remote's, named the
  way Obsidian Sync and Syncthing name theirs: `Note (conflict 2026-11-27 laptop).md`;
- deleted on one side, edited on the other: the edit is kept;
- a rename on one side and an edit on the other: git follows the rename.

The merge commit is built in the object store first and lands through the journal
(storage.vault.journal.land_commit), like any change of many files: a kill at any
point leaves the vault at its old commit or at the merge, never between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import pygit2
from pygit2.enums import FileMode

from storage.entry import BOT_AUTHOR, Author, Change, Written
from storage.vault.atomic import VaultLock
from storage.vault.commits import Committer
from storage.vault.gitrepo import GitRepo, signature
from storage.vault.journal import land_commit
from storage.vault.note_merge import merge_note
from storage.vault.notefile import entry_or_none
from storage.vault.paths import VaultPaths

_DEVICE_CHARACTERS = re.compile(r"[^\w .-]+")
_INIT_SUBJECT = "init vault"


@dataclass(frozen=True, slots=True)
class MergeConflict:
    """A note both sides changed on the same lines: `path` holds the vault's version,
    `copy` the remote's (`device` names who made it)."""

    path: str
    copy: str
    device: str


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What a merge did: `outcome` is up-to-date, ahead (only the vault moved),
    fast-forward, adopted (a new vault took the remote's history) or merged; `head`
    is the vault's commit after it."""

    outcome: str
    head: str
    conflicts: tuple[MergeConflict, ...] = ()


def device_name(commit: pygit2.Commit) -> str:
    """Who made the remote's side, for a conflict copy's name: the author of its
    commit, cut to what a file name may hold."""
    name = _DEVICE_CHARACTERS.sub(" ", commit.author.name).strip(" .-")
    return " ".join(name.split())[:40] or "remote"


def conflict_copy_path(path: str, day: date, device: str, taken: set[str]) -> str:
    """`folder/Note (conflict 2026-11-27 device).md`, numbered when that is taken."""
    pure = PurePosixPath(path)
    for number in range(1, 1000):
        extra = "" if number == 1 else f" {number}"
        name = f"{pure.stem} (conflict {day.isoformat()} {device}{extra}){pure.suffix}"
        candidate = str(pure.with_name(name))
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free name for a conflict copy of {path}")


class RemoteMerges:
    """The method of Vault that merges a fetched commit, which sets these attributes."""

    _lock: VaultLock
    _git: GitRepo
    _commits: Committer
    categories: tuple[str, ...]

    def merge_remote(self, theirs_id: str, message: str) -> MergeResult:
        """Bring the vault up to the remote's commit `theirs_id` (already fetched):
        hand edits are committed first, then a fast-forward or a merge commit that
        keeps both sides (see the module doc)."""
        with self._lock.hold():
            self.commit_outside_edits()
            repo = self._git.repo
            theirs = repo[theirs_id]
            assert isinstance(theirs, pygit2.Commit)
            ours = self._git.head_commit()
            if ours is None or _only_started(self._git, ours):
                return self._move_to(theirs, "adopted" if ours is not None else "fast-forward")
            if ours.id == theirs.id:
                return MergeResult("up-to-date", str(ours.id))
            base = repo.merge_base(ours.id, theirs.id)
            if base == theirs.id:
                return MergeResult("ahead", str(ours.id))
            if base == ours.id:
                return self._move_to(theirs, "fast-forward")
            tree, conflicts = _merged_tree(repo, ours, theirs)
            now = datetime.now(UTC)
            merge = repo.create_commit(
                None,
                signature(BOT_AUTHOR, now),
                signature(BOT_AUTHOR, now),
                _merge_message(message, conflicts),
                tree,
                [ours.id, theirs.id],
            )
            landed = land_commit(self._git, merge)
            return MergeResult("merged", str(landed.id), conflicts)

    def _move_to(self, theirs: pygit2.Commit, outcome: str) -> MergeResult:
        """Fast-forward to `theirs` (or adopt it whole: `outcome` says which)."""
        land_commit(self._git, theirs.id)
        if outcome == "adopted":
            # The remote's vault may lack the category folders: added as a commit.
            self._commits.ensure_layout(self.categories)
        head = self._git.head_commit()
        return MergeResult(outcome, str(head.id if head else theirs.id))

    def keep_version(self, path: str, copy: str, *, keep_copy: bool, author: Author) -> Written:
        """Settle a conflict the merge kept as a copy: the note keeps its own version
        (`keep_copy` False) or takes the copy's, and the copy goes, in one commit.
        EntryNotFound when the copy is gone (settled already)."""
        with self._lock.hold():
            rel_copy, full_copy = self._paths.resolve(copy)
            data = self._read_bytes(rel_copy, full_copy)
            rel, full = self._paths.resolve(path, for_write=True)
            files: dict[str, bytes | None] = {rel_copy: None}
            if keep_copy:
                files[rel] = data
            kept = "the other version" if keep_copy else "this version"
            note = f"kept {kept} after a sync conflict; {rel_copy} removed"
            change = self._commits.write(files, f"resolve {rel}", author, None, note)
            now = data if keep_copy else self._read_bytes(rel, full)
        return Written(entry_or_none(rel, now), change)

    if TYPE_CHECKING:  # provided by Vault and storage.vault.outside
        _paths: VaultPaths

        def commit_outside_edits(self) -> Change | None: ...

        def _read_bytes(self, rel: str, full: Path, expected_hash: str | None = None) -> bytes: ...


def _only_started(git: GitRepo, commit: pygit2.Commit) -> bool:
    """Whether the vault holds nothing but brainbot's first, empty commit: a vault
    created before its remote was reached, which takes the remote's history whole."""
    if commit.parents or not commit.message.startswith(_INIT_SUBJECT):
        return False
    paths = [path for path, _ in git.walk_blobs(commit.tree)]
    return all(path == ".gitignore" or path.endswith("/.gitkeep") for path in paths)


def _merged_tree(
    repo: pygit2.Repository, ours: pygit2.Commit, theirs: pygit2.Commit
) -> tuple[pygit2.Oid, tuple[MergeConflict, ...]]:
    index = repo.merge_commits(ours, theirs)
    if index.conflicts is None:
        return index.write_tree(repo), ()
    device = device_name(theirs)
    day = datetime.now(UTC).date()
    taken = {entry.path for entry in index}
    conflicts: list[MergeConflict] = []
    for base, mine, other in list(index.conflicts):
        path = (mine or other or base).path
        del index.conflicts[path]
        for side in (mine, other):
            if side is not None and side.path != path and side.path in index.conflicts:
                del index.conflicts[side.path]
        if mine is None or other is None or mine.path != other.path:
            # Deleted against edited, or renamed apart: every side still there stays.
            for side in (mine, other):
                if side is not None:
                    index.add(pygit2.IndexEntry(side.path, side.id, side.mode))
            continue
        merged = _merge_blobs(repo, base, mine, other) if mine.path.endswith(".md") else None
        if merged is not None:
            index.add(pygit2.IndexEntry(path, repo.create_blob(merged), mine.mode))
            continue
        copy = conflict_copy_path(path, day, device, taken)
        taken.add(copy)
        index.add(pygit2.IndexEntry(path, mine.id, mine.mode))
        index.add(pygit2.IndexEntry(copy, other.id, other.mode or FileMode.BLOB))
        conflicts.append(MergeConflict(path, copy, device))
    return index.write_tree(repo), tuple(conflicts)


def _merge_blobs(
    repo: pygit2.Repository,
    base: pygit2.IndexEntry | None,
    mine: pygit2.IndexEntry,
    other: pygit2.IndexEntry,
) -> bytes | None:
    def data(entry: pygit2.IndexEntry) -> bytes:
        blob = repo[entry.id]
        assert isinstance(blob, pygit2.Blob)
        return blob.data

    return merge_note(None if base is None else data(base), data(mine), data(other))


def _merge_message(message: str, conflicts: tuple[MergeConflict, ...]) -> str:
    if not conflicts:
        return f"{message}\n"
    kept = "\n".join(f"- {c.path}: the remote's version is in {c.copy}" for c in conflicts)
    return f"{message}\n\nBoth sides changed the same lines; both versions are kept:\n{kept}\n"
