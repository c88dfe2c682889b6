"""Exactly one process runs the scheduler: the one holding a Postgres advisory lock.

The lock is session-level and lives on a connection kept only for it, so it is
released by Postgres itself when the leader dies (its connection closes). Every
process polls: a follower tries to take the lock, the leader checks that its
connection still answers. A leader whose connection broke steps down at once; the
lock is gone on the server by then, and another process takes over at its next
poll. A short overlap during such a handover is harmless: the digest log lets each
digest through once.

Only the lock decides who leads. Work that fails (a callback that raises, a bad note
in a job) is logged and tried again at the next poll, by the same leader: stepping
down for it would only throw away every scheduled job and take office again at once,
at every poll, with the same failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

log = logging.getLogger(__name__)

# "brainbot" in ASCII: one fixed key per database (advisory locks are per database).
SCHEDULER_LOCK = 0x6272_6169_6E62_6F74

Callback = Callable[[], Awaitable[None]]


class Leadership:
    """Poll for the scheduler lock; `on_elected` runs when this process becomes the
    leader (again at each later poll until it once returns without raising),
    `while_leading` at each later poll that finds it still leading, `on_deposed` when
    it stops being one (lost connection or `stop`)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        on_elected: Callback,
        on_deposed: Callback,
        while_leading: Callback | None = None,
        key: int = SCHEDULER_LOCK,
        poll_seconds: float = 10.0,
    ) -> None:
        self.engine = engine
        self.key = key
        self.poll_seconds = poll_seconds
        self._on_elected = on_elected
        self._on_deposed = on_deposed
        self._while_leading = while_leading
        self._conn: AsyncConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.is_leader = False
        self._in_office = False  # on_elected has returned since the lock was taken

    async def start(self) -> None:
        """Make a first attempt now, then keep polling in the background."""
        await self.poll()
        self._task = asyncio.create_task(self._loop(), name="scheduler-leadership")

    async def stop(self) -> None:
        """Stop polling and give the lock up (another process can take over at once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.is_leader:
            await self._step_down()
        await self._release()

    def poke(self) -> None:
        """Poll now instead of at the next interval."""
        self._wake.set()

    async def poll(self) -> bool:
        """One round: try to become the leader, or check that we still are."""
        leading = self.is_leader
        try:
            if leading:
                await self._execute("SELECT 1")
            elif await self._try_lock():
                self.is_leader = True
                log.info("this process now runs the digest scheduler")
        except (DBAPIError, SQLAlchemyError, OSError) as exc:
            log.warning("scheduler lock connection failed: %s", exc)
            await self._drop_connection()
            if self.is_leader:
                await self._step_down()
            return False
        if not self.is_leader:
            return False
        # Only the lock's connection decides leadership; failed work is retried next poll.
        if not self._in_office:
            await self._take_office()
        elif self._while_leading is not None:
            try:
                await self._while_leading()
            except Exception:
                log.exception("scheduler work between polls failed")
        return True

    async def _loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_seconds)
            self._wake.clear()
            try:
                await self.poll()
            except Exception:
                # Polling must outlive any one failure: leadership is simply retried.
                log.exception("scheduler leadership round failed")

    async def _take_office(self) -> None:
        try:
            await self._on_elected()
        except Exception:
            log.exception("starting the digest scheduler failed; trying again at the next poll")
            return
        self._in_office = True

    async def _try_lock(self) -> bool:
        row = await self._execute(f"SELECT pg_try_advisory_lock({int(self.key)})")
        return bool(row)

    async def _execute(self, sql: str) -> object:
        if self._conn is None:
            conn = await self.engine.connect()
            # Autocommit: the lock belongs to the session; an open transaction held
            # for hours would only block vacuum.
            self._conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        return (await self._conn.execute(text(sql))).scalar()

    async def _step_down(self) -> None:
        self.is_leader = False
        self._in_office = False
        log.info("this process no longer runs the digest scheduler")
        await self._on_deposed()

    async def _release(self) -> None:
        if self._conn is None:
            return
        try:
            await self._conn.execute(text("SELECT pg_advisory_unlock_all()"))
            await self._conn.close()
        except (DBAPIError, SQLAlchemyError, OSError):
            await self._drop_connection()
        self._conn = None

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.invalidate()
            with contextlib.suppress(Exception):
                await conn.close()
