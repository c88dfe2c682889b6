"""The reminder log: which reminder went out, to whom, and what was done with it.

One row per (vault, note id, instant): a note's `remind` time (or its snooze) is
sent when the row is inserted, with an insert that succeeds only once, so a
restart, a second process or a late poll never sends a second copy. Moving a note
keeps its id, so a rename does not remind twice; a new `remind` time is a new row.
A failed send stays `retrying` until its next attempt is due (see scheduler.retry).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Column, ColumnElement, DateTime, Integer, Text, and_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db import send_retries
from storage.db.chat_tables import table_of


def _utc(nullable: bool = False, primary_key: bool = False) -> Any:
    return Field(
        sa_column=Column(DateTime(timezone=True), nullable=nullable, primary_key=primary_key)
    )


class ReminderLogRow(SQLModel, table=True):
    """One reminder of one note at one instant: claimed (`sending`) before it is sent."""

    __tablename__ = "reminder_log"

    vault_id: int = Field(sa_column=Column(Integer, primary_key=True))
    note_id: str = Field(sa_column=Column(Text, primary_key=True))
    remind_at: datetime = _utc(primary_key=True)
    user_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True, index=True))
    path: str = Field(sa_column=Column(Text, nullable=False))
    title: str = Field(sa_column=Column(Text, nullable=False))
    # sending | sent | retrying | failed | skipped
    status: str = Field(sa_column=Column(Text, nullable=False))
    attempts: int = Field(default=1, sa_column=Column(Integer, nullable=False, server_default="1"))
    claimed_at: datetime = _utc()
    finished_at: datetime | None = _utc(nullable=True)
    next_attempt_at: datetime | None = _utc(nullable=True)
    platform: str | None = None
    chat_id: str | None = None
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


REMINDERS = table_of(ReminderLogRow)


@dataclass(frozen=True, slots=True)
class ReminderKey:
    """Which reminder: one note (by its frontmatter id) at one instant."""

    vault_id: int
    note_id: str
    remind_at: datetime


@dataclass(frozen=True, slots=True)
class ReminderLogEntry:
    vault_id: int
    note_id: str
    remind_at: datetime
    user_id: int | None
    path: str
    title: str
    status: str
    attempts: int
    claimed_at: datetime
    finished_at: datetime | None
    next_attempt_at: datetime | None
    platform: str | None
    chat_id: str | None
    detail: str

    @property
    def key(self) -> ReminderKey:
        return ReminderKey(self.vault_id, self.note_id, self.remind_at)


def _where(key: ReminderKey) -> ColumnElement[bool]:
    c = REMINDERS.c
    return and_(c.vault_id == key.vault_id, c.note_id == key.note_id, c.remind_at == key.remind_at)


class ReminderLog:
    """The reminder table; every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def claim(
        self,
        key: ReminderKey,
        *,
        user_id: int | None,
        path: str,
        title: str,
        now: datetime,
        status: str = "sending",
        detail: str = "",
    ) -> bool:
        """Record the reminder as taken; True only for the one caller that inserted it."""
        stmt = (
            insert(REMINDERS)
            .values(
                vault_id=key.vault_id,
                note_id=key.note_id,
                remind_at=key.remind_at,
                user_id=user_id,
                path=path,
                title=title,
                status=status,
                attempts=1,
                claimed_at=now,
                detail=detail,
            )
            .on_conflict_do_nothing()
            .returning(REMINDERS.c.vault_id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def finish(
        self,
        key: ReminderKey,
        *,
        status: str,
        now: datetime,
        detail: str = "",
        platform: str | None = None,
        chat_id: str | None = None,
        next_attempt_at: datetime | None = None,
    ) -> None:
        stmt = (
            update(REMINDERS)
            .where(_where(key))
            .values(
                status=status,
                finished_at=now,
                detail=detail[:2000],
                platform=platform,
                chat_id=chat_id,
                next_attempt_at=next_attempt_at,
            )
        )
        async with self.engine.begin() as conn:
            await conn.execute(stmt)

    async def retries_due(self, now: datetime) -> list[ReminderLogEntry]:
        """Reminders whose send failed and whose next attempt is due."""
        return await self._entries(send_retries.retries_due(REMINDERS, now, REMINDERS.c.remind_at))

    async def reclaim(self, key: ReminderKey, now: datetime) -> ReminderLogEntry | None:
        """Take a due retry for one more attempt; None when another caller took it."""
        async with self.engine.begin() as conn:
            row = (await conn.execute(send_retries.reclaim(REMINDERS, _where(key), now))).first()
        return None if row is None else ReminderLogEntry(**row._mapping)

    async def entries(self, *, vault_id: int | None = None) -> list[ReminderLogEntry]:
        """Log rows, oldest instant first (every vault unless `vault_id` is given)."""
        stmt = select(REMINDERS).order_by(REMINDERS.c.remind_at, REMINDERS.c.note_id)
        if vault_id is not None:
            stmt = stmt.where(REMINDERS.c.vault_id == vault_id)
        return await self._entries(stmt)

    async def handled(self, vault_id: int, note_ids: list[str]) -> set[tuple[str, datetime]]:
        """(note id, instant) pairs of these notes the log has a row for."""
        if not note_ids:
            return set()
        c = REMINDERS.c
        stmt = select(c.note_id, c.remind_at).where(
            and_(c.vault_id == vault_id, c.note_id.in_(note_ids))
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return {(row.note_id, row.remind_at) for row in rows}

    async def _entries(self, stmt: Any) -> list[ReminderLogEntry]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [ReminderLogEntry(**row._mapping) for row in rows]
