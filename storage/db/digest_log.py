"""The digest log: which digest went to whom, and what each digest message showed.

`digest_log` has one row per (user, local date, kind). The row is inserted before
the digest is sent, with an insert that succeeds only once, so a restart, a second
process or a late timer can never send a second copy; the status follows after.
A failed send waits as `retrying` until its next attempt (see scheduler.retry);
`reclaim` lets exactly one caller make that attempt.

`digest_messages` keeps what a digest message listed (its action items and what
was done to them), so a Done or Snooze press can redraw the message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Date,
    DateTime,
    Integer,
    Table,
    Text,
    and_,
    cast,
    func,
    literal,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db import send_retries
from storage.db.approvals import short_id


class DigestLogRow(SQLModel, table=True):
    """One scheduled digest: claimed (status `sending`) before it is sent."""

    __tablename__ = "digest_log"

    user_id: int = Field(foreign_key="users.id", primary_key=True)
    local_date: date = Field(sa_column=Column(Date, primary_key=True))
    kind: str = Field(primary_key=True)  # daily | weekly
    status: str  # sending | sent | retrying | failed | skipped
    attempts: int = Field(default=1, sa_column=Column(Integer, nullable=False, server_default="1"))
    next_attempt_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    due_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    claimed_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    finished_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    platform: str | None = None
    chat_id: str | None = None
    message_id: str | None = None  # digest_messages.id of what was sent
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class DigestMessageRow(SQLModel, table=True):
    """A digest as shown in a chat, with the state of each action item."""

    __tablename__ = "digest_messages"

    id: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    kind: str
    local_date: date = Field(sa_column=Column(Date, nullable=False))
    content: dict[str, Any] = Field(sa_column=Column(JSONB, nullable=False))
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


@dataclass(frozen=True, slots=True)
class DigestKey:
    """Which digest: one per person, local date and kind."""

    user_id: int
    local_date: date
    kind: str


@dataclass(frozen=True, slots=True)
class DigestLogEntry:
    user_id: int
    local_date: date
    kind: str
    status: str
    attempts: int
    next_attempt_at: datetime | None
    due_at: datetime
    claimed_at: datetime
    finished_at: datetime | None
    platform: str | None
    chat_id: str | None
    message_id: str | None
    detail: str


@dataclass(frozen=True, slots=True)
class DigestMessage:
    id: str
    user_id: int
    kind: str
    local_date: date
    content: dict[str, Any]


def _table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


LOG = _table(DigestLogRow)
MESSAGES = _table(DigestMessageRow)
KEY = ("user_id", "local_date", "kind")
_MESSAGE_COLUMNS = tuple(
    MESSAGES.c[name] for name in ("id", "user_id", "kind", "local_date", "content")
)


def _where(key: DigestKey) -> ColumnElement[bool]:
    return and_(
        LOG.c.user_id == key.user_id, LOG.c.local_date == key.local_date, LOG.c.kind == key.kind
    )


def new_message_id() -> str:
    """A digest message id, short enough to sit in a button payload."""
    return short_id()


class DigestLog:
    """The two digest tables (created with the rest by `Database.create_schema` once
    this module is imported). Every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def claim(
        self,
        key: DigestKey,
        *,
        due_at: datetime,
        now: datetime,
        status: str = "sending",
        detail: str = "",
    ) -> bool:
        """Record the digest as taken; True only for the one caller that inserted the row."""
        stmt = (
            insert(LOG)
            .values(
                user_id=key.user_id,
                local_date=key.local_date,
                kind=key.kind,
                status=status,
                due_at=due_at,
                claimed_at=now,
                detail=detail,
            )
            .on_conflict_do_nothing(index_elements=list(KEY))
            .returning(LOG.c.user_id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def finish(
        self,
        key: DigestKey,
        *,
        status: str,
        now: datetime,
        detail: str = "",
        platform: str | None = None,
        chat_id: str | None = None,
        message_id: str | None = None,
        next_attempt_at: datetime | None = None,
    ) -> None:
        stmt = (
            update(LOG)
            .where(_where(key))
            .values(
                status=status,
                finished_at=now,
                detail=detail[:2000],
                platform=platform,
                chat_id=chat_id,
                message_id=message_id,
                next_attempt_at=next_attempt_at,
            )
        )
        async with self.engine.begin() as conn:
            await conn.execute(stmt)

    async def retries_due(self, now: datetime) -> list[DigestLogEntry]:
        """Digests whose send failed and whose next attempt is due."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(send_retries.retries_due(LOG, now, LOG.c.due_at))).all()
        return [DigestLogEntry(**row._mapping) for row in rows]

    async def reclaim(self, key: DigestKey, now: datetime) -> DigestLogEntry | None:
        """Take a due retry for one more attempt; None when another caller took it."""
        async with self.engine.begin() as conn:
            row = (await conn.execute(send_retries.reclaim(LOG, _where(key), now))).first()
        return None if row is None else DigestLogEntry(**row._mapping)

    async def entries(self, user_id: int | None = None) -> list[DigestLogEntry]:
        """Log rows, oldest date first (all users unless `user_id` is given)."""
        stmt = select(LOG).order_by(LOG.c.local_date, LOG.c.user_id, LOG.c.kind)
        if user_id is not None:
            stmt = stmt.where(LOG.c.user_id == user_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [DigestLogEntry(**row._mapping) for row in rows]

    async def add_message(
        self,
        *,
        message_id: str,
        user_id: int,
        kind: str,
        local_date: date,
        content: dict[str, Any],
        now: datetime,
    ) -> None:
        """Keep a digest as shown, under an id from `new_message_id` (its buttons carry it)."""
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(MESSAGES).values(
                    id=message_id,
                    user_id=user_id,
                    kind=kind,
                    local_date=local_date,
                    content=content,
                    created_at=now,
                )
            )

    async def message(self, message_id: str) -> DigestMessage | None:
        stmt = select(*_MESSAGE_COLUMNS).where(MESSAGES.c.id == message_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else DigestMessage(**row._mapping)

    async def mark_item(self, message_id: str, index: int, state: str) -> DigestMessage | None:
        """Set `content.items[index].state` in one statement (two presses on two items
        of one message cannot overwrite each other); returns the message as it is now."""
        path = cast(literal(["items", str(index), "state"]), ARRAY(Text))
        stmt = (
            update(MESSAGES)
            .where(MESSAGES.c.id == message_id)
            .values(
                content=func.jsonb_set(
                    MESSAGES.c.content, path, func.to_jsonb(literal(state, Text))
                )
            )
            .returning(*_MESSAGE_COLUMNS)
        )
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else DigestMessage(**row._mapping)
