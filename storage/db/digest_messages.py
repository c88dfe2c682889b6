"""What each digest message showed: its action items and what was done to them, so a
Done or Snooze press can redraw the message. Whether a digest went out at all is the
send ledger's (storage.db.send_ledger)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Column,
    Date,
    DateTime,
    Text,
    cast,
    func,
    literal,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.button_actions import short_id
from storage.db.chat_tables import table_of


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
class DigestMessage:
    id: str
    user_id: int
    kind: str
    local_date: date
    content: dict[str, Any]


MESSAGES = table_of(DigestMessageRow)
_MESSAGE_COLUMNS = tuple(
    MESSAGES.c[name] for name in ("id", "user_id", "kind", "local_date", "content")
)


def new_message_id() -> str:
    """A digest message id, short enough to sit in a button payload."""
    return short_id()


class DigestMessages:
    """The digests as shown (created with the rest by `Database.create_schema` once this
    module is imported). Every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

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
