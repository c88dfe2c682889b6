"""Writing to one vault in turn, with its index following: each write takes a task lock
(this process) and Postgres's advisory lock (other processes, storage.db.vault_lock),
runs in a worker thread (the vault is synchronous) and is indexed before the next one
starts; the whole-vault loads (sync, reindex, import) take the same locks.

The git index (a cache of `git status`, ~4 ms to write at 10,000 notes) is written
after the write returns, under the vault's own lock, and before the next write or
load of this writer starts: a reply does not wait for it. Until it is written it only
lags HEAD, which every reader of it allows for (GitRepo.uncommitted brings it up to
date first; another process's write keeps its own paths for its next write)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import ParamSpec

import pygit2

from storage.db.connection import Database
from storage.db.vault_lock import vault_write_lock
from storage.entry import ImportResult, Written
from storage.index import bulk
from storage.index.index import Index
from storage.index.sync import SyncReport, follow_commit, read_notes, sync_index
from storage.vault.vault import Vault

ImportProgress = Callable[[str, int, int], None]  # (phase: "copy" | "index", done, total)
_P = ParamSpec("_P")
log = logging.getLogger(__name__)


class Writer:
    """The one writer of a vault and its index (see the module doc)."""

    def __init__(self, vault: Vault, index: Index, database: Database) -> None:
        self.vault = vault
        self.index = index
        self.database = database
        self._lock = asyncio.Lock()
        self._repo = pygit2.Repository(str(vault.root))
        self._git_index: asyncio.Task[None] | None = None  # the last write's, being written

    async def write(
        self, call: Callable[_P, Written], *args: _P.args, **kwargs: _P.kwargs
    ) -> Written:
        """Run a vault write `call(*args, **kwargs)` in turn, then index what it changed.
        The git index is written while the database indexes and after (see the module
        doc): the write returns when its note is in the database's index."""

        def commit() -> Written:
            with self.vault.index_later():
                return call(*args, **kwargs)

        async with self._lock:
            await self._git_index_written()
            indexing: asyncio.Task[None] | None = None
            try:
                # Other processes may write to this vault too (see storage.db.vault_lock).
                async with vault_write_lock(self.database.locks, self.index.vault_id):
                    written = await asyncio.to_thread(commit)
                    indexing = asyncio.create_task(
                        follow_commit(self.vault, self.index, written, self._has_commit)
                    )
                    self._git_index = asyncio.create_task(asyncio.to_thread(self._follow_index))
            finally:
                if indexing is not None:
                    await indexing
        return written

    def _follow_index(self) -> None:
        """Write the git index for the last write; a failure waits for the next write
        (the vault keeps the paths), and is never the next write's failure."""
        try:
            self.vault.follow_index()
        except Exception as exc:
            log.warning("the git index of %s waits for the next write: %s", self.vault.root, exc)

    async def _git_index_written(self) -> None:
        if self._git_index is not None:
            await self._git_index
            self._git_index = None

    async def close(self) -> None:
        """Wait for the git index of the last write (a process leaving writes it first)."""
        async with self._lock:
            await self._git_index_written()

    def _has_commit(self, commit: str) -> bool:
        try:
            return self._repo.get(commit) is not None
        except (ValueError, pygit2.GitError):
            return False

    async def sync(self) -> SyncReport:
        """Index what changed in the vault outside brainbot since the last sync."""
        async with self._lock, vault_write_lock(self.database.locks, self.index.vault_id):
            await self._git_index_written()
            return await sync_index(self.vault, self.index, self._has_commit)

    async def reindex(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Rebuild the whole index from the vault: how many notes it indexed, and what
        it skipped."""
        async with self._lock:
            await self._git_index_written()
            await self.index.stop_embedding()  # every note is embedded here anyway
            every = await asyncio.to_thread(self.vault.changed_since, None)
            notes = await asyncio.to_thread(read_notes, self.vault, every.changed)
            refused = await bulk.load(
                self.index, notes.entries, notes.modified, replace_all=True, progress=progress
            )
            await self.index.mark_synced(every.head)
            skipped = (*every.skipped, *notes.skipped)
            count = len(notes.entries) - len(refused)
            return SyncReport(count, 0, every.head, 0, skipped, notes.read_fine, tuple(refused))

    async def import_folder(
        self, src: Path, progress: ImportProgress | None = None
    ) -> ImportResult:
        """Copy a folder of Markdown into the vault as one commit and index it in bulk."""
        copy_progress = (lambda done, total: progress("copy", done, total)) if progress else None
        index_progress = (lambda done, total: progress("index", done, total)) if progress else None
        async with self._lock, vault_write_lock(self.database.locks, self.index.vault_id):
            await self._git_index_written()
            result = await asyncio.to_thread(self.vault.import_tree, src, copy_progress)
            if result.written is None:
                return result
            notes = await asyncio.to_thread(read_notes, self.vault, result.imported)
            refused = await bulk.load(
                self.index, notes.entries, notes.modified, progress=index_progress
            )
            change = result.written.change
            if not await self.index.advance(change.commit, parent=change.parent):
                await sync_index(self.vault, self.index, self._has_commit)
        return replace(result, warnings=(*result.warnings, *refused))
