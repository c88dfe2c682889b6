"""Turning file changes into the vault's commits: write the working tree, then record
exactly those paths in one commit. Callers hold the vault lock."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2

from storage.entry import BOT_AUTHOR, Author, Change
from storage.vault.atomic import atomic_write, remove_file
from storage.vault.gitrepo import GitRepo
from storage.vault.history import commit_message

Source = Mapping[str, Any] | str | None
_GITIGNORE = b"# temp files of interrupted writes, and Obsidian's trash\n*.bbtmp\n.trash/\n"


class Committer:
    """Writes files and records them for one vault."""

    def __init__(self, root: Path, git: GitRepo) -> None:
        self.root = root
        self.git = git

    def write(
        self,
        files: Mapping[str, bytes | None],
        subject: str,
        author: Author,
        source: Source,
        note: str = "",
    ) -> Change:
        """Write (or, for None, remove) each file atomically, then commit them all. If
        the commit fails, the files are put back as they were."""
        before = {rel: _read_or_none(self.root / rel) for rel in files}
        try:
            self._apply(files)
            return self.record(files, subject, author, source, note)
        except BaseException:
            self._apply(before)
            raise

    def _apply(self, files: Mapping[str, bytes | None]) -> None:
        for rel, data in files.items():
            full = self.root / rel
            if data is None:
                remove_file(full, stop_at=self.root)
            else:
                atomic_write(full, data)

    def record(
        self,
        files: Mapping[str, bytes | pygit2.Oid | None],
        subject: str,
        author: Author,
        source: Source,
        note: str = "",
    ) -> Change:
        """Commit contents already in the working tree; `subject` starts with the operation."""
        blobs = {
            rel: self.git.blob(data) if isinstance(data, bytes) else data
            for rel, data in files.items()
        }
        message = commit_message(subject, source, note)
        commit = self.git.commit(blobs, message, author)
        return Change(
            commit=str(commit.id),
            operation=subject.split(" ", 1)[0],
            paths=tuple(sorted(files)),
            message=message,
            author=commit.author.name,
            when=datetime.fromtimestamp(commit.author.time, UTC),
        )

    def record_outside_edit(self, rel: str, on_disk: bytes) -> None:
        """Commit a file's uncommitted hand edit on its own (operation `edit`), so that
        the bot's next change to it, and an undo of that change, keep the person's work."""
        head = self.git.head_commit()
        committed = self.git.blob_id(head.tree, rel) if head else None
        if committed != pygit2.hash(on_disk):
            what = "edited" if committed is not None else "added"
            note = f"the note was {what} outside brainbot; recorded before the next change"
            self.record({rel: on_disk}, f"edit {rel}", BOT_AUTHOR, None, note)

    def ensure_layout(self, categories: Sequence[str]) -> None:
        """A folder (with a .gitkeep) per category, and a .gitignore in a new vault."""
        head = self.git.head_commit()
        tree = head.tree if head else None
        files: dict[str, bytes | None] = {}
        if head is None and not (self.root / ".gitignore").exists():
            files[".gitignore"] = _GITIGNORE
        for category in categories:
            if tree is None or category not in tree:
                files[f"{category}/.gitkeep"] = b""
        if not files:
            return
        for rel, data in files.items():
            full = self.root / rel
            if full.is_file():
                files[rel] = full.read_bytes()  # a file already there is what gets committed
            else:
                atomic_write(full, data or b"")
        added = [rel.split("/", 1)[0] for rel in files if rel.endswith("/.gitkeep")]
        subject = "init vault" if head is None else "add categories"
        self.record(files, f"{subject} {', '.join(added)}", BOT_AUTHOR, None)


def _read_or_none(full: Path) -> bytes | None:
    try:
        return full.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
