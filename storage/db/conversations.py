"""Conversation history: the messages the model sees again in the next turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import (
    MESSAGES,
)
from storage.db.connection import autocommit


@dataclass(frozen=True, slots=True)
class HistoryItem:
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None


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

    async def recent(self, conversation_key: str, limit: int) -> list[HistoryItem]:
        """The last `limit` messages of a conversation, oldest first."""
        c = MESSAGES.c
        stmt = (
            select(c.role, c.content, c.tool_calls, c.tool_call_id)
            .where(c.conversation_key == conversation_key)
            .order_by(c.id.desc())
            .limit(limit)
        )
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [HistoryItem(*row) for row in reversed(rows)]
