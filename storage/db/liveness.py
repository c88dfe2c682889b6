"""Which brainbot processes are alive, told by Postgres itself.

Each process holds a session advisory lock named by a random token for as long
as it runs (on a connection of its own). Postgres releases it when the process
dies, however it dies, so "can I take that lock?" answers "is its owner gone?".
Events carry their owner's token, so a restarted process resumes only the events
of processes that are really gone, never one a live process is still handling.
"""

from __future__ import annotations

import secrets

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

_NAMESPACE = 0x6262  # the first key of pg_advisory_lock(int, int): "bb"


class ProcessLiveness:
    def __init__(self, engine: AsyncEngine, token: int, holder: AsyncConnection) -> None:
        self.engine = engine
        self.token = token
        self._holder = holder

    @classmethod
    async def acquire(cls, engine: AsyncEngine) -> ProcessLiveness:
        """Take this process's lock under a fresh random token."""
        holder = await engine.connect()
        while True:
            token = secrets.randbelow(2**31 - 1) + 1
            taken = await holder.scalar(
                text("SELECT pg_try_advisory_lock(:ns, :token)"), {"ns": _NAMESPACE, "token": token}
            )
            await holder.commit()
            if taken:
                return cls(engine, token, holder)

    async def is_alive(self, token: int) -> bool:
        """True when the process with `token` still runs (its lock is held)."""
        if token == self.token:
            return True
        async with self.engine.connect() as conn:
            free = await conn.scalar(
                text("SELECT pg_try_advisory_lock(:ns, :token)"), {"ns": _NAMESPACE, "token": token}
            )
            if free:
                await conn.execute(
                    text("SELECT pg_advisory_unlock(:ns, :token)"),
                    {"ns": _NAMESPACE, "token": token},
                )
            await conn.commit()
        return not free

    async def release(self) -> None:
        await self._holder.close()
