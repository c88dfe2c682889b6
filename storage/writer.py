"""Writing to one vault in turn, with its index following: each write takes a task lock
(this process) and Postgres's advisory lock (other processes, storage.db.vault_lock),
runs in a worker thread (the vault is synchronous) and is indexed before the next one
starts; the whole-vault loads (sync, reindex, import) take the same locks."""

from __future__ import annotations

import asyncio
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


class Writer:
    """The one writer of a vault and its index (see the module doc)."""

    def __init__(self, vault: Vault, index: Index, database: Database) -> None:
        self.vault = vault
        self.index = index
        self.database = database
        self._lock = asyncio.Lock()
        self._repo = pygit2.Repository(str(vault.root))

    async def write(
        self, call: Callable[_P, Written], *args: _P.args, **kwargs: _P.kwargs
    ) -> Written:
        """Run a vault write `call(*args, **kwargs)` in turn, then index what it changed.
        The git index is written while the database indexes (each waits on its own
        disk or server), still under the vault's write lock."""

        def commit() -> Written:
            with self.vault.index_later():
                return call(*args, **kwargs)

        async with self._lock:
            indexing: asyncio.Task[None] | None = None
            try:
                # Other processes may write to this vault too (see storage.db.vault_lock).
                async with vault_write_lock(self.database.locks, self.index.vault_id):
                    written = await asyncio.to_thread(commit)
                    indexing = asyncio.create_task(
                        follow_commit(
                            self.vault, self.index, written, self._parent, self._has_commit
                        )
                    )
                    await asyncio.to_thread(self.vault.follow_index)
            finally:
                if indexing is not None:
                    await indexing
        return written

    def _has_commit(self, commit: str) -> bool:
        try:
            return self._repo.get(commit) is not None
        except (ValueError, pygit2.GitError):
            return False

    def _parent(self, commit: str) -> str | None:
        parents = self._repo[commit].parent_ids  # type: ignore[attr-defined]
        return str(parents[0]) if parents else None

    async def sync(self) -> SyncReport:
        """Index what changed in the vault outside brainbot since the last sync."""
        async with self._lock, vault_write_lock(self.database.locks, self.index.vault_id):
            return await sync_index(self.vault, self.index, self._has_commit)

    async def reindex(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Rebuild the whole index from the vault: how many notes it indexed, and what
        it skipped."""
        async with self._lock:
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
            result = await asyncio.to_thread(self.vault.import_tree, src, copy_progress)
            if result.written is None:
                return result
            notes = await asyncio.to_thread(read_notes, self.vault, result.imported)
            refused = await bulk.load(
                self.index, notes.entries, notes.modified, progress=index_progress
            )
            commit = result.written.change.commit
            parent = await asyncio.to_thread(self._parent, commit)
            if not await self.index.advance(commit, parent=parent):
                await sync_index(self.vault, self.index, self._has_commit)
        return replace(result, warnings=(*result.warnings, *refused))
