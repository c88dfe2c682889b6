"""A Postgres advisory lock per vault, so writes to one vault never interleave, even
from processes on different hosts that share the vault's folder.

The lock is a session lock on a connection held only for the write and its
commit (the index follows after it is released). A process that dies while
holding it loses its connection, and Postgres releases the lock with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.connection import autocommit

VAULT_WRITE = 0x6276_7772  # the lock class (first key); the vault id is the second
_LOCK = text("SELECT pg_advisory_lock(:cls, :vault)")
_UNLOCK = text("SELECT pg_advisory_unlock(:cls, :vault)")


@asynccontextmanager
async def vault_write_lock(engine: AsyncEngine, vault_id: int) -> AsyncIterator[None]:
    """Hold the vault's write lock for the `async with` block."""
    async with autocommit(engine).connect() as conn:
        keys = {"cls": VAULT_WRITE, "vault": vault_id}
        await conn.execute(_LOCK, keys)
        try:
            yield
        finally:
            await conn.execute(_UNLOCK, keys)
