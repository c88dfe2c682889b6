"""The tool-call log: every call the model made, what it wrote, how long it took."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import (
    TOOL_CALLS,
    ToolCallLog,
)
from storage.db.connection import autocommit, write_unsynced


class ToolCallRecords:
    """The tool-call log."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """Log tool calls (one transaction), without waiting for the disk: the event's
        finish flushes them before its reply goes out (storage.db.connection)."""
        if rows:
            await write_unsynced(self.engine, insert(TOOL_CALLS).inline(), rows)

    async def has_event(self, event_key: str) -> bool:
        """Whether a tool call was logged for the event `event_key`."""
        stmt = select(exists().where(TOOL_CALLS.c.event_key == event_key))
        async with self.engine.connect() as conn:
            return bool((await conn.execute(stmt)).scalar())

    async def last_written_entry(
        self, conversation_key: str, user_id: int, since: datetime, tools: Sequence[str]
    ) -> str | None:
        """The note this person's last successful call of one of `tools` in this
        conversation wrote (the tools that file or refile a note: the caller says)."""
        c = TOOL_CALLS.c
        stmt = (
            select(c.entry_path)
            .where(
                and_(
                    c.conversation_key == conversation_key,
                    c.user_id == user_id,
                    c.tool.in_(tools),
                    c.outcome == "ok",
                    c.entry_path.is_not(None),
                    c.created_at >= since,
                )
            )
            .order_by(c.id.desc())
            .limit(1)
        )
        async with autocommit(self.engine).connect() as conn:
            value = (await conn.execute(stmt)).scalar()
        return None if value is None else str(value)

    async def calls(self, conversation_key: str | None = None) -> list[ToolCallLog]:
        stmt = select(TOOL_CALLS).order_by(TOOL_CALLS.c.id)
        if conversation_key is not None:
            stmt = stmt.where(TOOL_CALLS.c.conversation_key == conversation_key)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [ToolCallLog.model_validate(row._mapping) for row in rows]
