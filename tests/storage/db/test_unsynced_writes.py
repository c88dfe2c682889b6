"""The records written without waiting for the disk (storage.db.connection.write_unsynced):
the tool log and a turn's history. Their rows are seen at once and go in whole; only
their own transaction skips the wait, never what the connection runs next."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.connection import async_url, autocommit_engine, write_unsynced
from storage.db.conversations import ConversationRecords, HistoryItem, history_rows
from storage.db.events import EventRecords, NewEvent
from storage.db.tool_log import ToolCallRecords

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """One pooled connection, in autocommit as the writes' own (storage.db.connection's
    autocommit face is this engine itself), so each test sees what a write leaves on it."""
    engine = autocommit_engine(async_url(database_url), pool_size=1, max_overflow=0)
    yield engine
    await engine.dispose()


def _call(tool: str) -> dict[str, object]:
    return {
        "user_id": None,
        "conversation_key": "chat:1",
        "tool": tool,
        "arguments": {"title": "Garden", "tags": ["plants"]},
        "outcome": "ok",
        "detail": "",
        "entry_path": "ideas/garden.md",
        "event_key": "chat:e1",
        "duration_ms": 1.5,
        "created_at": NOW,
    }


async def test_the_tool_log_and_the_history_are_read_back_at_once(engine: AsyncEngine) -> None:
    log = ToolCallRecords(engine)
    await log.add([_call("capture")])
    await log.add([_call("search_entries"), _call("tick_tasks")])
    history = ConversationRecords(engine)
    await history.add(
        "chat:1",
        None,
        [
            HistoryItem("user", "remember the garden", None, None),
            HistoryItem("assistant", "Saved to ideas/garden.md.", None, None),
        ],
        NOW,
    )

    calls = await log.calls("chat:1")
    assert [c.tool for c in calls] == ["capture", "search_entries", "tick_tasks"]
    assert calls[0].arguments == {"title": "Garden", "tags": ["plants"]}
    assert await log.has_event("chat:e1")
    _, items = await history.history("chat:1", 0, limit=10)
    assert [(i.role, i.content) for i in items] == [
        ("user", "remember the garden"),
        ("assistant", "Saved to ideas/garden.md."),
    ]


async def test_only_the_write_itself_skips_the_wait_for_the_disk(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE seen (setting text)"))
    async with engine.connect() as conn:  # the pool's one connection waits, as configured
        await conn.execute(text("SET synchronous_commit = on"))
        await conn.commit()

    await write_unsynced(
        engine, text("INSERT INTO seen SELECT current_setting('synchronous_commit')")
    )

    async with engine.connect() as conn:
        written = (await conn.execute(text("SELECT setting FROM seen"))).scalars().all()
        after = (await conn.execute(text("SHOW synchronous_commit"))).scalar()
    assert written == ["off"]
    assert after == "on"


async def test_a_refused_write_leaves_no_row_and_the_connection_usable(
    engine: AsyncEngine,
) -> None:
    log = ToolCallRecords(engine)
    broken = {**_call("move_entry"), "tool": None}  # the log's tool is NOT NULL

    # Raised when the pipeline ends, as psycopg's own error (storage.index.pipeline too).
    with pytest.raises((DBAPIError, psycopg.Error)):
        await log.add([_call("capture"), broken])

    assert await log.calls() == []
    await log.add([_call("capture")])
    assert [c.tool for c in await log.calls()] == ["capture"]


async def test_an_events_finish_keeps_its_turns_history_in_order_in_the_same_statement(
    engine: AsyncEngine,
) -> None:
    """The engine keeps a turn's history with the event's finish (one statement, one
    commit): every row in the turn's order, a tool call's JSON and a missing one kept."""
    events = EventRecords(engine)
    new = NewEvent("chat", "e1", "message", "chat:u1", "1", None, "tea?", NOW)
    assert (await events.arrive(new, by_setting=True)).first
    calls = [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]
    turn = [
        HistoryItem("user", "what about tea? ünïcode", None, None),
        HistoryItem("assistant", "", calls, None),
        HistoryItem("tool", '{"hits": []}', None, "c1"),
        HistoryItem("assistant", "Nothing on tea yet.", None, None),
    ]
    await events.finish("chat", "e1", "done", NOW, history_rows("chat:1:", None, turn, NOW))

    assert await events.unfinished() == []
    _, items = await ConversationRecords(engine).history("chat:1:", 0, limit=10)
    assert [(i.role, i.content, i.tool_calls, i.tool_call_id) for i in items] == [
        (t.role, t.content, t.tool_calls, t.tool_call_id) for t in turn
    ]
    async with engine.connect() as conn:
        stamps = (await conn.execute(text("SELECT created_at FROM messages"))).scalars().all()
    assert stamps == [NOW] * 4
