"""One poll's dealings with the ledger of skipped things (storage.db.skipped) for one
`where`: a reminder or a person's digest that fails is recorded and skipped, so the
poll goes on for everyone else; one that works again, or is gone, is cleared.

A thing that stays bad is recorded again (logged, counted) at most once per
RECORD_AGAIN, not at every poll of the leader (every 10 s): the row keeps it on
`brainbot doctor`'s list, the log and `brainbot_errors` are not flooded.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from storage.db import Skipped, SkippedItems

RECORD_AGAIN = timedelta(hours=1)

Key = tuple[int, str]  # (vault id, path)


class PollSkips:
    """What one poll skipped at `where`, against what the ledger held before it."""

    def __init__(
        self, items: SkippedItems, where: str, known: dict[Key, Skipped], now: datetime
    ) -> None:
        self.items = items
        self.where = where
        self.known = known
        self.now = now
        self.failed_now: set[Key] = set()

    @classmethod
    async def load(cls, items: SkippedItems, where: str, now: datetime) -> PollSkips:
        """The ledger's rows at `where`, read once for the poll."""
        known = {(row.vault_id, row.path): row for row in await items.kept(where)}
        return cls(items, where, known, now)

    async def failed(self, vault_id: int, path: str, reason: str) -> bool:
        """Record that `path` (in `vault_id`) was skipped for `reason`, once per poll and
        at most once per RECORD_AGAIN while the reason stays the same; whether it was
        recorded now."""
        key = (vault_id, path)
        if key in self.failed_now:
            return False
        self.failed_now.add(key)
        before = self.known.get(key)
        if (
            before is not None
            and before.reason == reason[:500]
            and self.now - before.last_at < RECORD_AGAIN
        ):
            return False
        await self.items.record(self.where, path, reason, self.now, vault_id)
        return True

    async def settle(self, judged: Callable[[Key], bool]) -> None:
        """Clear the rows of things this poll judged (`judged(key)`) and found fine, or
        did not find any more."""
        for key in self.known.keys() - self.failed_now:
            if judged(key):
                await self.items.clear(self.where, key[1], key[0])
