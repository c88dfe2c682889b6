"""Conversation history: the messages the model sees again in the next turn, and each
person's summary of the older turns the history no longer sends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, Select, bindparam, func, literal, select, true
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import MESSAGES, SUMMARIES
from storage.db.connection import autocommit, write_unsynced


@dataclass(frozen=True, slots=True)
class HistoryItem:
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None
    id: int | None = None  # its row, once stored


def history_rows(
    conversation_key: str, user_id: int | None, items: Sequence[HistoryItem], now: datetime
) -> list[dict[str, Any]]:
    """The `messages` rows of `items`, in their order."""
    return [
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


@dataclass(frozen=True, slots=True)
class Summary:
    """A person's older turns of one conversation, summarised: those up to the message
    `through_id`."""

    text: str
    through_id: int


def _history_statement() -> Select[Any]:
    """The summary and the messages after it in one statement, built once (its
    subqueries took longer to build for each turn than the query takes to run)."""
    s, m = SUMMARIES.c, MESSAGES.c
    kept = (
        select(s.summary, s.through_id)
        .where(s.conversation_key == bindparam("key"), s.user_id == bindparam("user"))
        .subquery("kept")
    )
    recent = (
        select(m.role, m.content, m.tool_calls, m.tool_call_id, m.id)
        .where(
            m.conversation_key == bindparam("key"),
            m.id > func.coalesce(kept.c.through_id, 0),
        )
        .order_by(m.id.desc())
        .limit(bindparam("limit", type_=Integer))
        .lateral("recent")
    )
    one = select(literal(1).label("one")).subquery("one")
    return (
        select(kept.c.summary, kept.c.through_id, *recent.c)
        .select_from(one.outerjoin(kept, true()).outerjoin(recent, true()))
        .order_by(recent.c.id.desc())
    )


_HISTORY = _history_statement()


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
        rows = history_rows(conversation_key, user_id, items, now)
        # Without waiting for the disk: the event's finish flushes them before its reply
        # goes out (storage.db.connection.write_unsynced).
        await write_unsynced(self.engine, insert(MESSAGES).inline(), rows)

    async def history(
        self, conversation_key: str, user_id: int, limit: int
    ) -> tuple[Summary | None, list[HistoryItem]]:
        """The person's summary of the conversation's older turns (None without one) and
        the last `limit` messages after it, oldest first: `summary` and `recent` in one
        round trip, as every turn asks for both."""
        asked = {"key": conversation_key, "user": user_id, "limit": limit}
        async with autocommit(self.engine).connect() as conn:
            rows = (await conn.execute(_HISTORY, asked)).all()
        first = rows[0]
        summary = None if first.through_id is None else Summary(first.summary, first.through_id)
        items = [HistoryItem(*row[2:]) for row in reversed(rows) if row.id is not None]
        return summary, items

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
