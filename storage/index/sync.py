"""Keeping the index in step with the vault when the change did not come through it.

Notes edited by hand are committed first (one commit per sync, by "edited outside
brainbot"), so they reach the history and the backups. The index remembers the
vault commit it reflects. A sync asks the vault what
changed since then (a tree diff plus uncommitted hand edits and new files), so its
cost follows the size of the change, not of the vault, and re-indexes only that.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from storage.entry import Entry, Written
from storage.errors import StorageError, UnsafePath
from storage.index import backfill
from storage.index.index import Index
from storage.vault.notefile import timestamp_problem
from storage.vault.paths import check_relpath, is_note_path
from storage.vault.vault import Vault

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one sync did: notes (re)indexed, notes dropped, and the commit reached."""

    indexed: int
    removed: int
    head: str | None
    embedded: int = 0
    # (path, why) for what was left out or read with a problem; "" is the whole vault.
    skipped: tuple[tuple[str, str], ...] = ()
    read: tuple[str, ...] = ()  # notes read without a problem: earlier skips are over
    # (path, why) for notes read but left out of the index (Postgres refused them);
    # Index.on_written hears of them as well.
    refused: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ReadNotes:
    """Notes read from the vault for indexing, with their files' modification times
    (the `updated` of a note without dates), paths that are no note any more, and
    what was skipped or read with a problem (path, why)."""

    entries: tuple[Entry, ...]
    modified: dict[str, datetime]
    missing: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def read_fine(self) -> tuple[str, ...]:
        """The notes read without any problem."""
        bad = {path for path, _ in self.skipped}
        return tuple(e.path for e in self.entries if e.path not in bad)


def read_notes(vault: Vault, paths: Sequence[str]) -> ReadNotes:
    """Read `paths` (blocking: run it in a thread). A path that is gone or cannot be
    read (too large, a pipe, a device) counts as missing: it leaves the index and,
    when it is there, is skipped with why. A note that is not UTF-8 or has an invalid
    date is indexed as well as it can be, and its problem reported too."""
    entries: list[Entry] = []
    modified: dict[str, datetime] = {}
    missing: list[str] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        try:
            entry = vault.read(path)
            mtime = (vault.root / entry.path).stat().st_mtime
        except (StorageError, OSError) as exc:
            if _safe_exists(vault, path):
                skipped.append((path, _reason(exc)))
            missing.append(path)
            continue
        entries.append(entry)
        modified[entry.path] = datetime.fromtimestamp(mtime, UTC)
        problems = [p for p in (entry.encoding_error, timestamp_problem(entry.fields)) if p]
        if problems:
            skipped.append((entry.path, "; ".join(problems)))
    return ReadNotes(tuple(entries), modified, tuple(missing), tuple(skipped))


def _reason(exc: Exception) -> str:
    return exc.reason if isinstance(exc, UnsafePath) else str(exc) or type(exc).__name__


def _safe_exists(vault: Vault, path: str) -> bool:
    """Whether anything is at `path` (a note, or a pipe or device in its place)."""
    try:
        return os.path.lexists(vault.root / check_relpath(path))
    except StorageError:
        return False


async def sync_index(vault: Vault, index: Index, has_commit: Callable[[str], bool]) -> SyncReport:
    """Bring `index` up to the vault as it is now (the caller serialises writers).
    `has_commit` tells whether the vault's history still holds a commit."""
    outside = await asyncio.to_thread(vault.commit_outside_edits)
    if outside is not None:
        log.info("sync: committed %s (edited outside brainbot)", ", ".join(outside.paths))
    last = await index.last_commit()
    recheck = await index.recheck_paths()
    rewritten = last is not None and not await asyncio.to_thread(has_commit, last)
    changed = await asyncio.to_thread(vault.changed_since, last)
    deleted = set(changed.deleted)
    paths = sorted((set(changed.changed) | set(recheck)) - deleted)
    notes = await asyncio.to_thread(read_notes, vault, paths)
    gone = sorted(deleted | set(notes.missing))
    if rewritten:
        # The indexed commit is gone from history (rewritten, force-pushed): the vault
        # reports every note as changed, and notes no longer there must go too.
        present = set(changed.changed)
        gone += [p for p in await index.paths() if p not in present]
    removed = await index.remove(gone)
    before = await index.content_hashes([e.path for e in notes.entries])
    refused = await index.upsert(notes.entries, notes.modified)
    out = {path for path, _ in refused}
    indexed = sum(
        1 for e in notes.entries if before.get(e.path) != e.content_hash and e.path not in out
    )
    # Uncommitted edits show up again next time anyway; the paths seen now are
    # looked at once more, in case such an edit is reverted by hand meanwhile.
    await index.mark_synced(changed.head, [*changed.changed, *changed.deleted])
    embedded = await backfill.embed_or_start(index)
    if indexed or removed:
        log.info("sync: %d notes indexed, %d removed, at %s", indexed, removed, changed.head)
    skipped = (*changed.skipped, *notes.skipped)
    return SyncReport(
        indexed, removed, changed.head, embedded, skipped, notes.read_fine, tuple(refused)
    )


async def follow_commit(
    vault: Vault,
    index: Index,
    written: Written,
    has_commit: Callable[[str], bool],
) -> None:
    """Index the notes of one commit a store just made (the note it wrote, and those it
    rewrote or removed) and record the commit; a sync when something else reached the
    vault between the index's commit (the change's parent) and this one. `has_commit`
    reads the history (blocking)."""
    change = written.change
    fresh = written.entry
    others = [p for p in change.paths if (fresh is None or p != fresh.path) and is_note_path(p)]
    # A note written on its own has nothing else to read: no hop to a worker thread.
    read = await asyncio.to_thread(read_notes, vault, others) if others else read_notes(vault, ())
    indexed = await index.follow(
        fresh,
        read.entries,
        read.modified,
        list(read.missing),
        commit=change.commit,
        parent=change.parent,
    )
    if not indexed:
        await sync_index(vault, index, has_commit)
