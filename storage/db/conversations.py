"""Conversation history: the messages the model sees again in the next turn, and each
person's summary of the older turns the history no longer sends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import MESSAGES, SUMMARIES
from storage.db.connection import autocommit


@dataclass(frozen=True, slots=True)
class HistoryItem:
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None
    id: int | None = None  # its row, once stored


@dataclass(frozen=True, slots=True)
class Summary:
    """A person's older turns of one conversation, summarised: those up to the message
    `through_id`."""

    text: str
    through_id: int


class ConversationRecords:
    """Conversation history."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(
        self,
        conversation_key: str,
        user_id: int | None,
        items: Sequence[HistoryItem],
        now: datetime,
    ) -> None:
        if not items:
            return
        rows = [
            {
                "conversation_key": conversation_key,
                "user_id": user_id,
                "role": item.role,
                "content": item.content,
                "tool_calls": item.tool_calls,
                "tool_call_id": item.tool_call_id,
                "created_at": now,
            }
            for item in items
        ]
        async with autocommit(self.engine).connect() as conn:  # one statement: atomic
            await conn.execute(insert(MESSAGES), rows)

    async def recent(
        self, conversation_key: str, limit: int, *, after_id: int = 0
    ) -> list[HistoryItem]:
        """The last `limit` messages of a conversation (those after the message
        `after_id`), oldest first."""
        c = MESSAGES.c
        stmt = (
            select(c.role, c.content, c.tool_calls, c.tool_call_id, c.id)
            .where(c.conversation_key == conversation_key, c.id > after_id)
            .order_by(c.id.desc())
            .limit(limit)
        )
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [HistoryItem(*row) for row in reversed(rows)]

    async def own_after(
        self, conversation_key: str, user_id: int, after_id: int, limit: int
    ) -> list[HistoryItem]:
        """One person's messages of a conversation after the message `after_id`, oldest
        first, at most `limit`: what their summary may be made from, and nothing else."""
        c = MESSAGES.c
        stmt = (
            select(c.role, c.content, c.tool_calls, c.tool_call_id, c.id)
            .where(
                c.conversation_key == conversation_key,
                c.user_id == user_id,
                c.id > after_id,
            )
            .order_by(c.id)
            .limit(limit)
        )
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [HistoryItem(*row) for row in rows]

    async def summary(self, conversation_key: str, user_id: int) -> Summary | None:
        """The person's summary of the conversation's older turns, if there is one."""
        c = SUMMARIES.c
        stmt = select(c.summary, c.through_id).where(
            c.conversation_key == conversation_key, c.user_id == user_id
        )
        async with autocommit(self.engine).connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else Summary(row.summary, row.through_id)

    async def save_summary(
        self, conversation_key: str, user_id: int, summary: Summary, now: datetime
    ) -> None:
        """Keep `summary` unless one covering more turns was kept meanwhile (another
        process summarised the same conversation)."""
        values = {
            "conversation_key": conversation_key,
            "user_id": user_id,
            "summary": summary.text,
            "through_id": summary.through_id,
            "updated_at": now,
        }
        stmt = insert(SUMMARIES).values(values)
        stmt = stmt.on_conflict_do_update(
            index_elements=[SUMMARIES.c.conversation_key, SUMMARIES.c.user_id],
            set_={k: stmt.excluded[k] for k in ("summary", "through_id", "updated_at")},
            where=SUMMARIES.c.through_id < stmt.excluded.through_id,
        )
        async with autocommit(self.engine).connect() as conn:
            await conn.execute(stmt)
