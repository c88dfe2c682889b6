"""The storage facade: the vault (the truth) and the index (derived), kept in step.

Every write goes through the vault (in turn and in a worker thread: the vault is
synchronous, see storage.writer) and updates the index in the same call. The index
records the vault commit it reflects; after one of our writes it moves forward only
when the new commit sits directly on the one it had, otherwise something changed
outside and a sync (run at once) picks that up from the git diff.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, tzinfo
from functools import partial
from pathlib import Path
from typing import Any

from storage.db.connection import Database
from storage.db.vault_lock import vault_write_lock
from storage.entry import (
    BOT_AUTHOR,
    Author,
    Backlink,
    Change,
    Entry,
    ImportResult,
    SearchResults,
    Written,
)
from storage.index.embeddings import Embedder
from storage.index.index import Index
from storage.index.indexer import WriteListener
from storage.index.sync import SyncReport
from storage.vault.daily import DailyNotes, daily_notes
from storage.vault.outside import NoteHashes
from storage.vault.remote_sync import RemoteSync, SyncRound
from storage.vault.vault import BodyEdit, Then, Vault
from storage.writer import ImportProgress, Writer

log = logging.getLogger(__name__)

Source = Mapping[str, Any] | str | None
Fields = Mapping[str, Any] | None


class Store:
    """Vault + Index behind one async API (see the module doc)."""

    def __init__(self, vault: Vault, index: Index, database: Database) -> None:
        self.vault = vault
        self.index = index
        self.database = database
        self.vault_id = index.vault_id
        self._writer = Writer(vault, index, database)  # every write, in turn (storage.writer)
        self._remote_round = asyncio.Lock()  # one sync with the remote at a time
        # What the sync at open did and skipped, for the app to record (app).
        self.opening = SyncReport(0, 0, None)

    @classmethod
    async def open(
        cls,
        *,
        vault_dir: Path,
        categories: Sequence[str],
        database: Database,
        embedder: Embedder | None,
        max_bytes: int,
        max_attachment_bytes: int,
        reembed: bool = False,
        vault_id: int = 1,
        embed_in_background: bool = True,
        on_written: WriteListener | None = None,
    ) -> Store:
        """Open (or create) the vault and its index, and bring the index up to date:
        a full build the first time, else a sync of what changed while we were away.
        `reembed` lets a new embedder replace the vectors of another (see Index.open);
        `vault_id` is the vault's slice of the index (storage.vaults); `on_written`
        hears what each index write left out (Index.on_written)."""
        # Another process may be creating the same vault (a shared folder): in turn.
        async with vault_write_lock(database.locks, vault_id):
            vault = await asyncio.to_thread(
                Vault,
                vault_dir,
                categories,
                max_bytes=max_bytes,
                max_attachment_bytes=max_attachment_bytes,
            )
        index = await Index.open(database, embedder, reembed=reembed, vault_id=vault_id)
        index.embed_in_background = embed_in_background
        index.on_written = on_written
        store = cls(vault, index, database)
        try:
            fresh = await index.last_commit() is None
            store.opening = await (store.reindex() if fresh else store.sync())
        except Exception as exc:
            # The vault's own content must never keep it (or brainbot) from opening:
            # the index stays as it was and the next sync tries again.
            log.warning("syncing %s at open failed: %s", vault_dir.name, exc, exc_info=True)
            problem = f"the sync at open failed (the next sync tries again): {exc}"
            store.opening = SyncReport(0, 0, None, skipped=(("", problem),))
        return store

    async def close(self) -> None:
        """Finish the last write's git index and release the index (Index.close); the
        database and the embedder are the caller's."""
        await self._writer.close()
        await self.index.close()

    # ---- writes --------------------------------------------------------------------

    async def create(
        self, category: str, title: str, body: str = "", fields: Fields = None, **how: Any
    ) -> Entry:
        """File a new note and index it (`create_with_files`, without files)."""
        return (await self.create_with_files(category, title, body, fields, **how))[0]

    async def create_with_files(
        self,
        category: str,
        title: str,
        body: str = "",
        fields: Fields = None,
        *,
        files: Sequence[tuple[str, bytes]] = (),
        author: Author = BOT_AUTHOR,
        source: Source = None,
        zone: tzinfo | None = None,
        then: Then | None = None,
    ) -> tuple[Entry, tuple[str, ...]]:
        """File a new note, and `files` (name, bytes) under `attachments/`, in one commit
        (see Vault.create), and index them: the note, and the files' paths in order."""
        create = partial(
            self.vault.create, author=author, source=source, zone=zone, then=then, attachments=files
        )
        written = await self._writer.write(create, category, title, body, fields)
        return await self._entry_of(written), written.attachments

    async def _entry_of(self, written: Written) -> Entry:
        if written.entry is not None:
            return written.entry
        # The vault could not parse what it wrote (a moved non-UTF-8 file): say why.
        notes = [p for p in written.change.paths if p.endswith(".md")]
        present = [p for p in notes if await asyncio.to_thread(self.vault.exists, p)]
        return await self.read((present or notes)[-1])

    async def update(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        remove_fields: Sequence[str] = (),
        expected_hash: str | None = None,
        author: Author = BOT_AUTHOR,
        source: Source = None,
    ) -> Entry:
        """Change fields and/or the body (see Vault.update) and re-index the note."""
        entry, _ = await self.update_committed(
            path,
            fields=fields,
            body=body,
            remove_fields=remove_fields,
            expected_hash=expected_hash,
            author=author,
            source=source,
        )
        return entry

    async def update_committed(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        remove_fields: Sequence[str] = (),
        expected_hash: str | None = None,
        author: Author = BOT_AUTHOR,
        source: Source = None,
        operation: str = "update",
    ) -> tuple[Entry, Change]:
        """`update`, and the change that recorded it: an Undo of exactly this edit
        needs its commit (the vault's head may already be another writer's).
        `operation` names the kind of change in the commit's subject."""
        written = await self._writer.write(
            self.vault.update,
            path,
            fields=fields,
            body=body,
            remove_fields=remove_fields,
            expected_hash=expected_hash,
            author=author,
            source=source,
            operation=operation,
        )
        return await self._entry_of(written), written.change

    async def update_bodies(self, edits: Mapping[str, BodyEdit], **how: Any) -> Change:
        """Several notes' bodies changed in one commit (see Vault.update_bodies), indexed."""
        return (await self._writer.write(self.vault.update_bodies, edits, **how)).change

    async def move(
        self,
        path: str,
        category: str,
        *,
        expected_hash: str | None = None,
        author: Author = BOT_AUTHOR,
        source: Source = None,
    ) -> Entry:
        """Move a note to another category (see Vault.move); the index follows, for the
        note and for every note whose links were rewritten."""
        written = await self._writer.write(
            self.vault.move,
            path,
            category,
            expected_hash=expected_hash,
            author=author,
            source=source,
        )
        return await self._entry_of(written)

    async def rename(
        self,
        path: str,
        title: str,
        file_name: str | None = None,
        *,
        expected_hash: str | None = None,
        author: Author = BOT_AUTHOR,
        source: Source = None,
    ) -> tuple[Entry, Change]:
        """New title and file name (see Vault.rename); every relinked note is re-indexed.
        The change says which notes it rewrote."""
        written = await self._writer.write(
            self.vault.rename,
            path,
            title,
            file_name,
            expected_hash=expected_hash,
            author=author,
            source=source,
        )
        return await self._entry_of(written), written.change

    async def delete(
        self,
        path: str,
        *,
        expected_hash: str | None = None,
        author: Author = BOT_AUTHOR,
        source: Source = None,
    ) -> Change:
        """Delete a note (git keeps it) and drop it from the index."""
        written = await self._writer.write(
            self.vault.delete, path, expected_hash=expected_hash, author=author, source=source
        )
        return written.change

    async def undo(
        self,
        commit: str,
        *,
        author: Author = BOT_AUTHOR,
        source: Source = None,
        expected_hash: str | None = None,
    ) -> Change:
        """Revert an earlier change (see Vault.undo); every note it touches is re-indexed."""
        written = await self._writer.write(
            self.vault.undo, commit, author=author, source=source, expected_hash=expected_hash
        )
        return written.change

    async def has_event_commit(self, event_key: str, since: datetime) -> bool:
        """Whether a commit made since `since` was made for the event `event_key` (its
        commit message's source line names it)."""
        return await asyncio.to_thread(self.vault.has_event_commit, event_key, since)

    async def change(self, commit: str) -> Change:
        """One change of the vault's history by its full commit id (ChangeNotFound)."""
        return await asyncio.to_thread(self.vault.change, commit)

    async def write_note(
        self,
        path: str,
        text: str | Callable[[str | None], str],
        *,
        operation: str,
        author: Author = BOT_AUTHOR,
        message: str = "",
        source: Source = None,
    ) -> Written:
        """Write a whole Markdown file (e.g. a digest) and index it."""
        return await self._writer.write(
            self.vault.write_note,
            path,
            text,
            operation=operation,
            author=author,
            message=message,
            source=source,
        )

    async def write_attachments(
        self, files: Sequence[tuple[str, bytes]], *, author: Author, source: Source = None
    ) -> tuple[str, ...]:
        """Keep files from chat (name, bytes) under `attachments/` in one commit; returns
        their vault paths, in order."""
        if not files:
            return ()
        write = partial(self.vault.write_attachments, author=author, source=source)
        return (await self._writer.write(write, files)).attachments

    # ---- reads ---------------------------------------------------------------------

    async def read(self, path: str) -> Entry:
        """The note as it is on disk (EntryNotFound, UnsafePath...)."""
        return await asyncio.to_thread(self.vault.read, path)

    async def read_file(self, path: str, max_bytes: int, *, note: bool = False) -> bytes:
        """The bytes of a file in the vault that is not read as a note (an attachment,
        a template), under the same checks as a note (see Vault.read_file)."""
        return await asyncio.to_thread(self.vault.read_file, path, max_bytes, note=note)

    async def daily_notes(self, setting: str) -> DailyNotes | None:
        """Where the vault keeps its daily notes and how it names them, as `setting`
        (BRAINBOT_DAILY_NOTE) and Obsidian's settings in the vault say; None: nowhere."""
        return await asyncio.to_thread(daily_notes, self.vault.root, setting)

    async def hashes_on_disk(self, paths: Sequence[str]) -> NoteHashes:
        """Notes changed on disk as they are now, without a sync (Vault.hashes_on_disk)."""
        return await asyncio.to_thread(self.vault.hashes_on_disk, paths)

    async def history(self, path: str | None = None, limit: int = 20) -> builtins.list[Change]:
        """Changes newest first, of one note or of the whole vault."""
        return await asyncio.to_thread(self.vault.history, path, limit)

    async def list(
        self,
        category: str | None = None,
        status: str | None = None,
        tag: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> builtins.list[Entry]:
        """Notes newest first (by `updated`), from the index; `offset` skips that many."""
        return await self.index.list_entries(
            category=category, status=status, tag=tag, limit=limit, offset=offset
        )

    async def count(
        self, category: str | None = None, status: str | None = None, tag: str | None = None
    ) -> int:
        """How many notes `list` would give without a limit."""
        return await self.index.count_entries(category=category, status=status, tag=tag)

    async def find(
        self, name: str, limit: int = 10, *, exact: bool = False
    ) -> builtins.list[Entry]:
        """Notes a person may mean by `name`: a path, a title, a file name or an alias
        (exact matches, else, unless `exact`, notes whose title or path contains it)."""
        return await self.index.find(name, limit, exact=exact)

    async def recent(self, limit: int = 10) -> builtins.list[tuple[str, str]]:
        """(path, title) of the most recently updated notes of every category."""
        return await self.index.recent_titles(limit)

    async def search(self, query: str, **filters: Any) -> SearchResults:
        """Hybrid search; `filters` are Index.search's keywords (category, tags, status,
        modified_after, modified_before, limit, and `filed`: the days a question named)."""
        return await self.index.search(query, **filters)

    async def backlinks(self, path: str) -> builtins.list[Backlink]:
        """Notes linking to the note at `path`, newest first."""
        return await self.index.backlinks(path)

    # ---- keeping the index in step -------------------------------------------------

    async def sync(self) -> SyncReport:
        """Index what changed in the vault outside brainbot since the last sync."""
        return await self._writer.sync()

    async def sync_remote(self, remote: str) -> SyncRound:
        """One round of two-way sync with the vault's git remote (storage.vault.
        remote_sync), then the index follows what came in (the git diff). Never raises
        for the remote's failures: the round says what went wrong."""
        async with self._remote_round:
            done = await asyncio.to_thread(RemoteSync(self.vault, remote).run)
            if done.moved:
                await self.sync()
        return done

    async def keep_version(
        self, path: str, copy: str, *, keep_copy: bool, author: Author = BOT_AUTHOR
    ) -> Written:
        """Settle a sync conflict: the note keeps its version or takes its conflict
        copy's, and the copy goes (Vault.keep_version), then the index follows."""
        keep = partial(self.vault.keep_version, keep_copy=keep_copy, author=author)
        return await self._writer.write(keep, path, copy)

    async def reindex(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Rebuild the whole index from the vault: how many notes it indexed, and what
        it skipped."""
        return await self._writer.reindex(progress)

    async def import_folder(
        self, src: Path, progress: ImportProgress | None = None
    ) -> ImportResult:
        """Copy a folder of Markdown into the vault as one commit and index it in bulk."""
        return await self._writer.import_folder(src, progress)
