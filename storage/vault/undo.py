"""Planning an undo: the inverse of one commit's changes, applied on top of HEAD,
like `git revert`. Nothing is written here; the vault commits the plan."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from storage.errors import ChangeNotFound, NothingToChange, StorageError, UndoConflict
from storage.vault.diffs import bytes_diff
from storage.vault.gitrepo import GitRepo


@dataclass(frozen=True, slots=True)
class UndoPlan:
    commit: pygit2.Commit
    subject: str  # the undone commit's subject line
    files: dict[str, bytes | None]  # path -> content after the undo (None: removed)
    current: dict[str, bytes | None]  # path -> content at HEAD, for previews

    @property
    def content_hash(self) -> str:
        """A token for what the undo would find and write: an approval computed on it
        runs only while both are still the same."""
        digest = hashlib.sha256(str(self.commit.id).encode())
        for rel in sorted(self.files):
            for data in (self.current[rel], self.files[rel]):
                digest.update(b"\0" + rel.encode() + b"\0")
                digest.update(b"-" if data is None else b"+" + data)
        return digest.hexdigest()

    def diff(self) -> str:
        """What the undo would change, as one unified diff over every file it touches."""
        return "".join(
            bytes_diff(
                rel if self.current[rel] is not None else None,
                self.current[rel] or b"",
                rel if new is not None else None,
                new or b"",
            )
            for rel, new in sorted(self.files.items())
        )


def plan_undo(git: GitRepo, ref: str) -> UndoPlan:
    """What undoing `ref` would write. Each path goes back to its content before that
    commit; where a later change touched the same file, the two are merged line by
    line, and if they overlap (or the file has uncommitted edits) it is an UndoConflict."""
    commit = git.find_commit(ref)
    if not commit.parents:
        raise StorageError("the vault's first commit cannot be undone")
    head = git.head_commit()
    if head is None:
        raise ChangeNotFound(ref)
    parent = commit.parents[0]
    files: dict[str, bytes | None] = {}
    current: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    for change in git.diff(parent.tree, commit.tree):
        path = change.path
        now = git.blob_id(head.tree, path)
        if now == change.old:
            continue  # already as it was before that commit
        if now == change.new:
            restored = None if change.old is None else git.blob_data(change.old)
        else:
            restored = _merge(git, path, ancestor=change.new, ours=now, theirs=change.old)
            if restored is None:
                conflicts.append(path)
                continue
        if not _worktree_matches(git, path, now):
            conflicts.append(path)
            continue
        files[path] = restored
        current[path] = None if now is None else git.blob_data(now)
    if conflicts:
        raise UndoConflict(str(commit.id), tuple(conflicts))
    if not files:
        raise NothingToChange(str(commit.id)[:10])
    subject = commit.message.split("\n", 1)[0].strip()
    return UndoPlan(commit, subject, files, current)


def _merge(
    git: GitRepo,
    path: str,
    *,
    ancestor: pygit2.Oid | None,
    ours: pygit2.Oid | None,
    theirs: pygit2.Oid | None,
) -> bytes | None:
    """A clean three-way merge of one file, or None when it does not merge cleanly.

    Every change the vault makes rewrites the note's `updated:` line, so any two of
    them overlap there. That line alone is no reason to refuse: it is taken from the
    note as it is now (a later change's stamp), and the rest must merge cleanly."""
    merged = _merge_blobs(git, path, ancestor, ours, theirs)
    if merged is not None or ancestor is None or ours is None or theirs is None:
        return merged
    stamp = _STAMP.search(_frontmatter(git.blob_data(ours)))
    if stamp is None:
        return None
    line = stamp.group(0)
    same = [
        git.repo.create_blob(_STAMP.sub(lambda _: line, data, count=1))
        for data in (git.blob_data(ancestor), git.blob_data(theirs))
    ]
    return _merge_blobs(git, path, same[0], ours, same[1])


_STAMP = re.compile(rb"^updated:[^\n]*$", re.MULTILINE)


def _frontmatter(data: bytes) -> bytes:
    """The YAML block at the top of a note ("" when it has none)."""
    if not data.startswith(b"---"):
        return b""
    end = data.find(b"\n---", 3)
    return data[: end if end != -1 else 0]


def _merge_blobs(
    git: GitRepo,
    path: str,
    ancestor: pygit2.Oid | None,
    ours: pygit2.Oid | None,
    theirs: pygit2.Oid | None,
) -> bytes | None:
    if ancestor is None or ours is None or theirs is None:
        return None  # created or deleted on one side and changed on the other

    def entry(oid: pygit2.Oid) -> pygit2.IndexEntry:
        return pygit2.IndexEntry(path, oid, FileMode.BLOB)

    try:
        result = git.repo.merge_file_from_index(entry(ancestor), entry(ours), entry(theirs))
    except (pygit2.GitError, UnicodeDecodeError):
        return None  # binary content: no line merge
    return result.contents.encode("utf-8") if result.automergeable else None


def _worktree_matches(git: GitRepo, path: str, committed: pygit2.Oid | None) -> bool:
    # An undo must not overwrite edits that were never committed.
    full: Path = git.root / path
    if committed is None:
        return not full.exists()
    try:
        return pygit2.hash(full.read_bytes()) == committed
    except OSError:
        return False
