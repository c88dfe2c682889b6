"""What a sync, the watcher, the index or an import left out, put where the owner sees it.

Storage reports what it skipped (a note too large, a named pipe, a folder nested too
deep, an invalid date, a note Postgres refused to index) with the path and why; here
each is logged, counted (`brainbot_errors{where}`) and kept for `brainbot doctor`
(storage.db.skipped), and its row is cleared once the path is read (or indexed) fine
again. A problem already recorded by
this process is not recorded again at every sync (every 30 s): the log and the
counter say when something new went wrong, not that it still is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from bot import metrics
from storage import Store, VaultInfo
from storage.db import SkippedItems
from storage.index import SyncReport

log = logging.getLogger(__name__)

WHOLE_VAULT = ""  # the path of a problem with the whole vault (a sync that failed)
INDEX = "index"  # where a note the index left out is recorded (storage.index.indexer)


class SkipLedger:
    """Records skips from storage reports, once per (where, vault, path, reason) and
    process; `clock` gives the time of each record."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        counted: Callable[[str], None] = metrics.error,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.items = SkippedItems(engine, counted=counted)
        self.clock = clock
        self._recorded: dict[tuple[str, int, str], str] = {}
        # The notes left out of the index with a row in the ledger, as (vault, path):
        # read from the ledger once, then kept here, so the write of every capture
        # asks nothing of the database to learn that its note has no row to clear.
        self._left_out: set[tuple[int, str]] | None = None

    async def skipped(self, where: str, vault_id: int, skipped: Iterable[tuple[str, str]]) -> None:
        """Record each (path, why) not yet recorded with that reason."""
        for path, reason in skipped:
            key = (where, vault_id, path)
            if self._recorded.get(key) == reason:
                continue
            try:
                await self.items.record(where, path or WHOLE_VAULT, reason, self.clock(), vault_id)
            except Exception as exc:
                # The ledger is a report: a database hiccup must not stop the sync.
                log.warning("skipped %s (%s): %s; not recorded: %s", path, where, reason, exc)
                continue
            self._recorded[key] = reason

    async def read_fine(self, where: str, vault_id: int, paths: Sequence[str]) -> None:
        """These paths were read without a problem: their rows go."""
        if not paths:
            return
        try:
            await self.items.clear_many(where, paths, vault_id)
        except Exception as exc:
            log.warning("could not clear skipped notes of vault %s: %s", vault_id, exc)
            return
        for path in paths:
            self._recorded.pop((where, vault_id, path), None)

    async def synced(self, vault_id: int, report: SyncReport, *, first: bool = False) -> None:
        """Record what one sync (or reindex) skipped and clear what it read fine; a sync
        that ran means the vault as a whole syncs again (a failure recorded before, by
        this process or, at the `first` sync, by an earlier one, is over)."""
        await self.skipped("sync", vault_id, report.skipped)
        bad = {path for path, _ in report.skipped}
        failed_before = first or ("sync", vault_id, WHOLE_VAULT) in self._recorded
        whole = [WHOLE_VAULT] if failed_before else []
        fine = [p for p in (*whole, *report.read) if p not in bad]
        await self.read_fine("sync", vault_id, fine)

    async def sync_failed(self, vault_id: int, exc: BaseException) -> None:
        """A sync that raised: the vault as a whole is recorded; the next sync retries."""
        reason = f"syncing failed (the next sync tries again): {exc}"
        await self.skipped("sync", vault_id, [(WHOLE_VAULT, reason)])

    async def indexed(
        self, vault_id: int, refused: Sequence[tuple[str, str]], settled: Sequence[str]
    ) -> None:
        """What one index write left out (path, why) is recorded; the rows of notes it
        indexed (or dropped) since are cleared (an Index.on_written listener)."""
        if self._left_out is None:
            try:
                rows = await self.items.kept(INDEX)
            except Exception as exc:
                log.warning("could not read the notes left out of the index: %s", exc)
                rows = []
            self._left_out = {(row.vault_id, row.path) for row in rows}
        await self.skipped(INDEX, vault_id, refused)
        self._left_out.update((vault_id, path) for path, _ in refused)
        done = [path for path in settled if (vault_id, path) in self._left_out]
        await self.read_fine(INDEX, vault_id, done)
        self._left_out.difference_update((vault_id, path) for path in done)

    async def opened(self, vault: VaultInfo, store: Store) -> None:
        """A store just opened: what its first sync did (a Vaults.on_open listener)."""
        await self.synced(vault.id, store.opening, first=True)
