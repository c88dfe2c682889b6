"""Which older notes the digest brought back, when, and how much the person wants them.

One row per (vault, path), made the first time a note is resurfaced or lowered:
`last_shown` (the person's local date of the digest that showed it) keeps the same
note from coming back the next days, and `weight` (1 until "Less like this" halves
it) scales how close a note must be to what was captured to be shown again; below
NEVER_BELOW it is never shown again. The notes themselves stay as they are: this is
the person's taste, not their notes' content, so it is kept here and not in the vault.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from sqlalchemy import Column, Date, DateTime, Float, Integer, Text, case, func, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import table_of
from storage.db.connection import autocommit

LOWER_BY = 0.5  # "Less like this" multiplies the weight by this
NEVER_BELOW = 0.3  # a weight under this (two presses) means never again


class ResurfacedRow(SQLModel, table=True):
    """One note the digest brought back (or was told to bring back less)."""

    __tablename__ = "resurfaced"

    vault_id: int = Field(sa_column=Column(Integer, primary_key=True))
    path: str = Field(sa_column=Column(Text, primary_key=True))
    weight: float = Field(sa_column=Column(Float, nullable=False, server_default="1"))
    last_shown: date | None = Field(default=None, sa_column=Column(Date))
    times_shown: int = Field(sa_column=Column(Integer, nullable=False, server_default="0"))
    lowered_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


RESURFACED = table_of(ResurfacedRow)


class Resurfaced:
    """The record of resurfaced notes; every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def record_shown(self, vault_id: int, paths: Sequence[str], day: date) -> None:
        """`paths` were shown in the digest of local date `day` (shown again the same
        day, as a digest composed twice, counts once)."""
        if not paths:
            return
        c = RESURFACED.c
        stmt = insert(RESURFACED).values(
            [{"vault_id": vault_id, "path": p, "last_shown": day, "times_shown": 1} for p in paths]
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[c.vault_id, c.path],
            set_={
                "last_shown": func.greatest(c.last_shown, day),
                "times_shown": c.times_shown
                + case((c.last_shown.is_distinct_from(day), 1), else_=0),
            },
        )
        # Bookkeeping a crash may lose (a note might come back a day early): the digest
        # does not wait for it to reach the disk (measured on a busy machine: 11 ms of
        # the older notes' 46 waiting for the disk, 4 ms without).
        async with self.engine.begin() as conn:
            await conn.execute(text("SET LOCAL synchronous_commit = off"))
            await conn.execute(stmt)

    async def lower(self, vault_id: int, path: str, now: datetime) -> float:
        """Less like this, on the note at `path`: its weight halves; the new weight
        (under NEVER_BELOW: it is not shown again)."""
        c = RESURFACED.c
        stmt = (
            insert(RESURFACED)
            .values(vault_id=vault_id, path=path, weight=LOWER_BY, lowered_at=now)
            .on_conflict_do_update(
                index_elements=[c.vault_id, c.path],
                set_={"weight": c.weight * LOWER_BY, "lowered_at": now},
            )
            .returning(c.weight)
        )
        async with autocommit(self.engine).connect() as conn:
            return float((await conn.execute(stmt)).scalar_one())
