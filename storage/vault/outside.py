"""What reaches a vault other than through brainbot's own writes: notes edited, added or
deleted by hand (committed as their own change), what changed since a commit (for the
index's sync), and a folder imported whole (mixed into Vault)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from storage.entry import BOT_AUTHOR, OUTSIDE_AUTHOR, Change, ChangedPaths, ImportResult, Written
from storage.errors import EntryNotFound, NotAFile, StorageError
from storage.vault.atomic import VaultLock
from storage.vault.commits import Committer
from storage.vault.files import read_regular
from storage.vault.gitrepo import GitRepo
from storage.vault.importer import collect_tree
from storage.vault.notefile import content_hash
from storage.vault.paths import VaultPaths
from storage.vault.scan import changed_since, uncommitted_notes

Progress = Callable[[int, int], None]
# Each note's content hash (None: deleted), or None for all of them when only a sync
# can tell; and the paths that are no file a note can be, with why.
NoteHashes = tuple[dict[str, str | None] | None, tuple[tuple[str, str], ...]]


class OutsideChanges:
    """The methods of Vault for changes from outside, which sets these attributes."""

    _lock: VaultLock
    _paths: VaultPaths
    _git: GitRepo
    _commits: Committer
    max_bytes: int
    max_attachment_bytes: int

    def commit_outside_edits(self) -> Change | None:
        """Commit notes edited, added or deleted outside brainbot (Obsidian, an editor) as
        one commit by OUTSIDE_AUTHOR, so they are in the history and the backups and
        `git status` is clean again. None when there were none."""
        with self._lock.hold():
            files = uncommitted_notes(self._git, self._paths, self.max_bytes)
            if not files:
                return None
            names = next(iter(files)) if len(files) == 1 else f"{len(files)} notes"
            return self._commits.record(
                files, f"edit {names}", OUTSIDE_AUTHOR, None, "edited outside brainbot"
            )

    def changed_since(self, commit: str | None) -> ChangedPaths:
        """Notes changed or deleted since `commit`: committed changes (a tree diff, so
        the cost follows the change) plus hand edits and new files not yet committed.
        With None, or a commit no longer in the repository, every note counts as changed."""
        with self._lock.hold():
            return changed_since(self._git, self._paths, commit)

    def hashes_on_disk(self, paths: Sequence[str]) -> NoteHashes:
        """Each changed note's content hash as it is on disk (None: deleted), and the
        paths that are no regular file (never opened: reading a named pipe would wait
        forever). None instead of hashes for a folder, a note over the cap or another
        file: only a sync can tell what they change. For the watcher (app.watch)."""
        hashes: dict[str, str | None] = {}
        skipped: list[tuple[str, str]] = []
        root = self._paths.root
        for rel in paths:
            full = root / rel
            if not rel.endswith(".md") or full.is_dir():
                return None, tuple(skipped)
            try:
                hashes[rel] = content_hash(read_regular(full, rel, self.max_bytes, root))
            except EntryNotFound:
                hashes[rel] = None
            except NotAFile as exc:
                skipped.append((rel, str(exc)))
            except (StorageError, OSError):
                return None, tuple(skipped)
        return hashes, tuple(skipped)

    def import_tree(self, src: Path, progress: Progress | None = None) -> ImportResult:
        """Copy a folder of Markdown (an Obsidian vault) into the vault as one commit,
        keeping relative paths. Hidden folders are skipped; other files (images, PDFs)
        are copied up to the attachment size cap; empty and oversized notes, pipes and
        folders too deep are skipped; notes not UTF-8 or with broken frontmatter are
        kept as they are and reported. Files already in the vault are never overwritten."""
        with self._lock.hold():
            found = collect_tree(
                src,
                self._paths,
                self._git,
                max_note_bytes=self.max_bytes,
                max_other_bytes=self.max_attachment_bytes,
                progress=progress,
            )
            written = None
            if found.blobs:
                noun = "note" if len(found.notes) == 1 else "notes"
                subject = f"import {len(found.notes)} {noun} from {src.name or 'a folder'}"
                note = f"{len(found.copied)} other files copied, {len(found.skipped)} skipped"
                written = Written(
                    None, self._commits.write(found.blobs, subject, BOT_AUTHOR, None, note)
                )
        return ImportResult(written, found.notes, found.skipped, found.copied, found.warnings)
