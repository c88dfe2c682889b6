"""A Postgres advisory lock per vault, so writes to one vault never interleave, even
from processes on different hosts that share the vault's folder.

The lock is a session lock on a connection held only for the write and its
commit (the index follows after it is released). A process that dies while
holding it loses its connection, and Postgres releases the lock with it.

The release leaves without its answer being waited for: the writer goes on (a reply
need not wait a round trip more), and the next holder, here or in another process,
waits in Postgres until the release lands, as it would for any holder.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.db.connection import autocommit, later

log = logging.getLogger(__name__)

VAULT_WRITE = 0x6276_7772  # the lock class (first key); the vault id is the second
_LOCK = text("SELECT pg_advisory_lock(:cls, :vault)")
_UNLOCK = text("SELECT pg_advisory_unlock(:cls, :vault)")


@asynccontextmanager
async def vault_write_lock(engine: AsyncEngine, vault_id: int) -> AsyncIterator[None]:
    """Hold the vault's write lock for the `async with` block."""
    keys = {"cls": VAULT_WRITE, "vault": vault_id}
    conn = await autocommit(engine).connect()
    try:
        await conn.execute(_LOCK, keys)
    except BaseException:
        await conn.close()
        raise
    try:
        yield
    finally:
        later(engine, _release(conn, keys))


async def _release(conn: AsyncConnection, keys: dict[str, int]) -> None:
    try:
        await conn.execute(_UNLOCK, keys)
    except Exception as exc:
        # The connection is dropped, not pooled: its session ends, and the lock with it.
        log.warning("the vault lock's release failed (%s); its session is ended instead", exc)
        await conn.invalidate()
    finally:
        await conn.close()
