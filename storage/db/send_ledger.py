"""The send ledger: which digest or reminder went out, to whom, and how it went.

One row per send: a digest is one per (person, local date, kind), a reminder one per
(vault, note id, instant). The row is inserted before the send with an insert that
succeeds only once, so a restart, a second process or a late timer can never send a
second copy; the status follows after (sending | sent | retrying | failed | skipped).
A failed send waits as `retrying` until `next_attempt_at` (see scheduler.retry), and
`reclaim` lets exactly one caller make that attempt. Moving a note keeps its id, so
a rename does not remind twice; a new `remind` time is a new row.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal, Protocol

from sqlalchemy import Column, Date, DateTime, Index, Integer, Text, and_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import table_of
from storage.db.connection import autocommit

What = Literal["digest", "reminder"]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _column(kind: Any, *, nullable: bool = True, **extra: Any) -> Any:
    return Field(default=None, sa_column=Column(kind, nullable=nullable, **extra))


class SendRow(SQLModel, table=True):
    """One digest or reminder, claimed (`sending`) before it is sent."""

    __tablename__ = "send_ledger"
    __table_args__ = (Index("send_ledger_notes", "vault_id", "note_id"),)

    what: str = Field(sa_column=Column(Text, primary_key=True))  # digest | reminder
    key: str = Field(sa_column=Column(Text, primary_key=True))  # the send, within `what`
    due_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    user_id: int | None = _column(Integer, index=True)  # who it is for
    local_date: date | None = _column(Date)  # a digest's day and kind
    kind: str | None = _column(Text)
    vault_id: int | None = _column(Integer)  # a reminder's note and where it was
    note_id: str | None = _column(Text)
    path: str | None = _column(Text)
    title: str | None = _column(Text)
    status: str = Field(sa_column=Column(Text, nullable=False))
    attempts: int = Field(default=1, sa_column=Column(Integer, nullable=False, server_default="1"))
    claimed_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    finished_at: datetime | None = _column(DateTime(timezone=True))
    next_attempt_at: datetime | None = _column(DateTime(timezone=True))
    platform: str | None = _column(Text)
    chat_id: str | None = _column(Text)
    message_id: str | None = _column(Text)  # a digest's digest_messages.id
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


SENDS = table_of(SendRow)


class SendKey(Protocol):
    """Which send: its kind, its key in the ledger, and the columns that say so."""

    @property
    def what(self) -> What: ...

    @property
    def ledger_key(self) -> str: ...

    def columns(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class DigestKey:
    """One digest: per person, local date and kind (daily | weekly)."""

    user_id: int
    local_date: date
    kind: str
    what: What = "digest"

    @property
    def ledger_key(self) -> str:
        return f"{self.user_id}/{self.local_date.isoformat()}/{self.kind}"

    def columns(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "local_date": self.local_date, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class ReminderKey:
    """One reminder: one note (by its frontmatter id) at one instant."""

    vault_id: int
    note_id: str
    remind_at: datetime
    what: What = "reminder"

    @property
    def ledger_key(self) -> str:
        micros = (self.remind_at - _EPOCH) // timedelta(microseconds=1)
        return f"{self.vault_id}/{self.note_id}/{micros}"

    def columns(self) -> dict[str, Any]:
        return {"vault_id": self.vault_id, "note_id": self.note_id, "due_at": self.remind_at}


@dataclass(frozen=True, slots=True)
class Send:
    """A row of the ledger."""

    what: str
    key: str
    due_at: datetime
    user_id: int | None
    local_date: date | None
    kind: str | None
    vault_id: int | None
    note_id: str | None
    path: str | None
    title: str | None
    status: str
    attempts: int
    claimed_at: datetime
    finished_at: datetime | None
    next_attempt_at: datetime | None
    platform: str | None
    chat_id: str | None
    message_id: str | None
    detail: str

    @property
    def digest(self) -> DigestKey:
        assert self.user_id is not None and self.local_date is not None and self.kind
        return DigestKey(self.user_id, self.local_date, self.kind)

    @property
    def reminder(self) -> ReminderKey:
        assert self.vault_id is not None and self.note_id is not None
        return ReminderKey(self.vault_id, self.note_id, self.due_at)


_COLUMNS = tuple(SENDS.c[f.name] for f in fields(Send))


def _send(row: Any) -> Send:
    return Send(**row._mapping)


def _where(key: SendKey) -> Any:
    return and_(SENDS.c.what == key.what, SENDS.c.key == key.ledger_key)


class SendLedger:
    """The ledger (created with the rest by `Database.create_schema` once this module is
    imported). Every method is one statement."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = autocommit(engine)

    async def claim(
        self,
        key: SendKey,
        *,
        now: datetime,
        due_at: datetime | None = None,
        user_id: int | None = None,
        path: str | None = None,
        title: str | None = None,
        status: str = "sending",
        detail: str = "",
    ) -> bool:
        """Record the send as taken; True only for the one caller that inserted the row."""
        values: dict[str, Any] = {
            "user_id": user_id,
            "path": path,
            "title": title,
            **key.columns(),
            "what": key.what,
            "key": key.ledger_key,
            "status": status,
            "attempts": 1,
            "claimed_at": now,
            "detail": detail,
        }
        if due_at is not None:
            values["due_at"] = due_at
        stmt = insert(SENDS).values(**values).on_conflict_do_nothing().returning(SENDS.c.key)
        async with self.engine.connect() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def finish(
        self,
        key: SendKey,
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
            update(SENDS)
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
        async with self.engine.connect() as conn:
            await conn.execute(stmt)

    async def retries_due(self, what: What, now: datetime) -> list[Send]:
        """Sends of `what` whose send failed and whose next attempt is due."""
        c = SENDS.c
        stmt = (
            select(*_COLUMNS)
            .where(and_(c.what == what, c.status == "retrying", c.next_attempt_at <= now))
            .order_by(c.due_at)
        )
        return await self._sends(stmt)

    async def reclaim(self, key: SendKey, now: datetime) -> Send | None:
        """Take a due retry for one more attempt; None when another caller took it."""
        c = SENDS.c
        stmt = (
            update(SENDS)
            .where(_where(key), c.status == "retrying", c.next_attempt_at <= now)
            .values(status="sending", attempts=c.attempts + 1, claimed_at=now)
            .returning(*_COLUMNS)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else _send(row)

    async def entries(
        self, what: What, *, user_id: int | None = None, vault_id: int | None = None
    ) -> list[Send]:
        """The ledger's rows of `what`, oldest first (of one person or vault if named)."""
        c = SENDS.c
        stmt = select(*_COLUMNS).where(c.what == what).order_by(c.due_at, c.key)
        if user_id is not None:
            stmt = stmt.where(c.user_id == user_id)
        if vault_id is not None:
            stmt = stmt.where(c.vault_id == vault_id)
        return await self._sends(stmt)

    async def handled(self, vault_id: int, note_ids: list[str]) -> set[tuple[str, datetime]]:
        """(note id, instant) of the reminders of these notes the ledger has a row for."""
        if not note_ids:
            return set()
        c = SENDS.c
        stmt = select(c.note_id, c.due_at).where(
            and_(c.what == "reminder", c.vault_id == vault_id, c.note_id.in_(note_ids))
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return {(row.note_id, row.due_at) for row in rows}

    async def _sends(self, stmt: Any) -> list[Send]:
        async with self.engine.connect() as conn:
            return [_send(row) for row in (await conn.execute(stmt)).all()]
