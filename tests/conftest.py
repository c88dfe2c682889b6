"""Shared fixtures: one embedded Postgres per test session, a database per test cloned
from one migrated once per run, and a guard that makes any network call off this
machine fail loudly."""

from __future__ import annotations

import itertools
import os
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.postgres import start_postgres

os.environ.setdefault("HF_HUB_OFFLINE", "1")
for _name in list(os.environ):
    # Tests configure brainbot explicitly; the developer's shell must not leak in.
    if _name.startswith(("BRAINBOT_", "SLACK_", "TELEGRAM_", "OPENAI_")) or _name == "DATABASE_URL":
        del os.environ[_name]

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _check_address(sock: socket.socket, address: Any) -> None:
    if sock.family == socket.AF_UNIX:
        return
    host = address[0] if isinstance(address, tuple) else address
    if host in ("127.0.0.1", "::1", "localhost") or str(host).startswith("127."):
        return
    raise RuntimeError(f"test tried to reach the network: {address!r}")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check_address(self, address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check_address(self, address)
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that start brainbot processes first (the sort keeps each group's order):
    with several workers, a long one started last would leave the others idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A Postgres 16 with pgvector for the whole session; yields its admin URI."""
    server, uri = start_postgres(Path(tempfile.mkdtemp(prefix="brainbot-pg-")), durable=False)
    yield uri
    server.cleanup()


MIGRATED = "brainbot_migrated"
_db_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def migrated_template(pg_server: str) -> str:
    """A database brought up to date once per run, as `brainbot run` does at its first
    start (migrations, then the tables registered later); every test clones it."""
    import asyncio

    import psycopg

    from storage.db.engine import Database
    from storage.db.migrations import migrate
    from storage.db.records import Records

    async def bring_up_to_date(url: str) -> None:
        database = await Database.connect(url, Path(tempfile.gettempdir()))
        try:
            await migrate(database.engine)
            await Records(database.engine).create_schema()
        finally:
            await database.close()

    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{MIGRATED}" TEMPLATE template1')
    asyncio.run(bring_up_to_date(pg_server.replace("/postgres?", f"/{MIGRATED}?")))
    return MIGRATED


def _database(pg_server: str, template: str) -> Iterator[str]:
    import psycopg

    name = f"t{os.getpid()}_{next(_db_numbers)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    yield pg_server.replace("/postgres?", f"/{name}?")
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def database_url(pg_server: str, migrated_template: str) -> Iterator[str]:
    """A database of one's own, with the current schema and no rows, for one test."""
    yield from _database(pg_server, migrated_template)


@pytest.fixture
def empty_database_url(pg_server: str) -> Iterator[str]:
    """A database with nothing but the vector extension: for tests of migrations."""
    yield from _database(pg_server, "template1")


@pytest.fixture
async def openai_fake() -> AsyncIterator[FakeOpenAI]:
    """The fake OpenAI-compatible API on 127.0.0.1, stopped after the test."""
    fake = FakeOpenAI()
    await fake.start()
    yield fake
    await fake.stop()
