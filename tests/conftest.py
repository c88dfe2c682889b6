"""Shared fixtures: one embedded Postgres per test session, a fresh database per
test, and a guard that makes any network call off this machine fail loudly."""

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


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A Postgres 16 with pgvector for the whole session; yields its admin URI."""
    server, uri = start_postgres(Path(tempfile.mkdtemp(prefix="brainbot-pg-")))
    yield uri
    server.cleanup()


_db_numbers = itertools.count(1)


@pytest.fixture
def database_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty database (with the vector extension) for one test."""
    import psycopg

    name = f"t{os.getpid()}_{next(_db_numbers)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template1')
    yield pg_server.replace("/postgres?", f"/{name}?")
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def openai_fake() -> AsyncIterator[FakeOpenAI]:
    """The fake OpenAI-compatible API on 127.0.0.1, stopped after the test."""
    fake = FakeOpenAI()
    await fake.start()
    yield fake
    await fake.stop()
