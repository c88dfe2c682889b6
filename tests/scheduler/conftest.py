"""A fresh database with every table (the digest log's included) for scheduler tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

import storage.db.digest_messages
import storage.db.send_ledger  # noqa: F401
from storage.db.connection import Database, async_url

__all__ = ["async_url"]


@pytest.fixture
async def database(database_url: str, tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.connect(database_url, tmp_path)
    yield database
    await database.close()


@pytest.fixture
def engine(database: Database) -> AsyncEngine:
    return database.engine
