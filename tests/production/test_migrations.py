"""Upgrading keeps the data: a database from before a schema change is migrated in
place, once, even with several processes starting together."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from storage.migrations import LATEST, MIGRATIONS, SchemaTooNew, applied_versions, migrate
from tests.fakes.brain import running_brain


async def _make_old_database(url: str) -> None:
    """The schema as brainbot had it before `tool_calls.event_key`, with a row in it."""
    engine = create_async_engine(async_url(url))
    try:
        await migrate(engine)
        async with engine.begin() as conn:
            await conn.execute(text("DROP TABLE schema_version"))
            await conn.execute(text("ALTER TABLE tool_calls DROP COLUMN event_key"))
            await conn.execute(
                text(
                    "INSERT INTO tool_calls (conversation_key, tool, arguments, outcome, detail,"
                    " duration_ms, created_at) VALUES ('telegram:42', 'capture', '{}', 'ok', '',"
                    " 1.0, :at)"
                ),
                {"at": datetime.now(UTC)},
            )
    finally:
        await engine.dispose()


async def test_an_old_database_is_upgraded_and_keeps_its_rows(
    tmp_path: Path, empty_database_url: str
) -> None:
    await _make_old_database(empty_database_url)
    async with running_brain(tmp_path, empty_database_url) as runtime:
        assert await applied_versions(runtime.database.engine) == [m.version for m in MIGRATIONS]
        calls = await runtime.records.tool_log.calls()
        assert [(c.conversation_key, c.tool, c.event_key) for c in calls] == [
            ("telegram:42", "capture", "")
        ]
        assert not await runtime.records.tool_log.has_event("telegram:1")


async def test_processes_starting_together_migrate_once(empty_database_url: str) -> None:
    engines = [create_async_engine(async_url(empty_database_url)) for _ in range(3)]
    try:
        applied = await asyncio.gather(*(migrate(engine) for engine in engines))
        assert sorted(len(now) for now in applied) == [0, 0, len(MIGRATIONS)]
        assert await applied_versions(engines[0]) == [m.version for m in MIGRATIONS]
    finally:
        for engine in engines:
            await engine.dispose()


async def test_a_database_from_a_newer_brainbot_is_refused(empty_database_url: str) -> None:
    engine = create_async_engine(async_url(empty_database_url))
    try:
        await migrate(engine)
        async with engine.begin() as conn:
            await conn.execute(
                text("INSERT INTO schema_version VALUES (:v, 'from the future', now())"),
                {"v": LATEST + 1},
            )
        with pytest.raises(SchemaTooNew, match="newer than this brainbot"):
            await migrate(engine)
    finally:
        await engine.dispose()
