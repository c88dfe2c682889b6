"""What was skipped because it was bad: a note with an impossible date, a reminder whose
repeat rule cannot be followed, a file the vault cannot read.

One bad note must never stop anyone else (issue: hardening II), so the code that meets
it skips it and says so here: one row per (where, vault, path), counted, with the last
reason. `brainbot doctor` lists this week's rows, so the owner learns what was left
alone without reading logs; a row is cleared when the thing is read fine again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Column, DateTime, Integer, Text, any_, delete, select
from sqlalchemy.dialects.postgresql import array, insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import table_of
from storage.db.connection import autocommit

log = logging.getLogger(__name__)

NO_VAULT = 0  # where a skip belongs to no vault (a setting, a person's schedule)


class SkippedRow(SQLModel, table=True):
    """One skipped thing, by where it was met (`reminders`, `sync`, `watch`, ...)."""

    __tablename__ = "skipped_items"

    where: str = Field(sa_column=Column(Text, primary_key=True))
    vault_id: int = Field(sa_column=Column(Integer, primary_key=True))
    path: str = Field(sa_column=Column(Text, primary_key=True))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    times: int = Field(sa_column=Column(Integer, nullable=False))
    first_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    last_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


SKIPPED = table_of(SkippedRow)


@dataclass(frozen=True, slots=True)
class Skipped:
    where: str
    vault_id: int
    path: str
    reason: str
    times: int
    last_at: datetime


class SkippedItems:
    """The ledger of skipped things; every method is one statement. `counted` is told
    the `where` of each skip (the app passes the `brainbot_errors` counter)."""

    def __init__(
        self, engine: AsyncEngine, counted: Callable[[str], None] = lambda where: None
    ) -> None:
        self.engine = engine
        self.counted = counted

    async def record(
        self, where: str, path: str, reason: str, at: datetime, vault_id: int = NO_VAULT
    ) -> None:
        """Log, count and keep one skip (a second skip of the same thing counts up)."""
        log.warning("skipped %s (%s, vault %s): %s", path, where, vault_id, reason)
        self.counted(where)
        row = {
            "where": where,
            "vault_id": vault_id,
            "path": path,
            "reason": reason[:500],
            "times": 1,
            "first_at": at,
            "last_at": at,
        }
        stmt = insert(SKIPPED).values(row)
        stmt = stmt.on_conflict_do_update(
            index_elements=["where", "vault_id", "path"],
            set_={
                "reason": stmt.excluded.reason,
                "last_at": stmt.excluded.last_at,
                "times": SKIPPED.c.times + 1,
            },
        )
        async with autocommit(self.engine).connect() as conn:
            await conn.execute(stmt)

    async def clear(self, where: str, path: str, vault_id: int = NO_VAULT) -> None:
        """The thing is read fine again (fixed by hand, or gone)."""
        c = SKIPPED.c
        stmt = delete(SKIPPED).where(c.where == where, c.vault_id == vault_id, c.path == path)
        async with autocommit(self.engine).connect() as conn:
            await conn.execute(stmt)

    async def clear_many(self, where: str, paths: Sequence[str], vault_id: int = NO_VAULT) -> None:
        """`clear` for many things at once (the notes one sync read fine)."""
        if not paths:
            return
        c = SKIPPED.c
        stmt = delete(SKIPPED).where(
            c.where == where, c.vault_id == vault_id, c.path == any_(array(list(paths)))
        )
        async with autocommit(self.engine).connect() as conn:
            await conn.execute(stmt)

    async def since(self, when: datetime) -> list[Skipped]:
        """What was skipped at or after `when`, newest first."""
        c = SKIPPED.c
        stmt = (
            select(c.where, c.vault_id, c.path, c.reason, c.times, c.last_at)
            .where(c.last_at >= when)
            .order_by(c.last_at.desc())
        )
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Skipped(*row) for row in rows]

    async def kept(self, where: str) -> list[Skipped]:
        """Every row met at `where` (a poll reads them once, to clear what is fine again)."""
        c = SKIPPED.c
        stmt = select(c.where, c.vault_id, c.path, c.reason, c.times, c.last_at).where(
            c.where == where
        )
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Skipped(*row) for row in rows]

    async def this_week(self, now: datetime) -> list[Skipped]:
        return await self.since(now - timedelta(days=7))
