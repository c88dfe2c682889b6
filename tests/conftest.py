"""Shared fixtures: one embedded Postgres per test session (or the server named by
BRAINBOT_TEST_DATABASE_URL), a database per test cloned from one migrated once per
run, and a guard that makes any network call off this machine (or off that server)
fail loudly."""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.postgres import start_postgres

ROOT = Path(__file__).parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# `make test-server`: the suite on a server of one's choosing (a role that may create
# databases, and the `vector` extension installed) instead of the embedded one.
EXTERNAL_SERVER = os.environ.pop("BRAINBOT_TEST_DATABASE_URL", "") or None
for _name in list(os.environ):
    # Tests configure brainbot explicitly; the developer's shell must not leak in.
    if _name.startswith(("BRAINBOT_", "SLACK_", "TELEGRAM_", "OPENAI_")) or _name == "DATABASE_URL":
        del os.environ[_name]

_server_host = make_url(EXTERNAL_SERVER).host if EXTERNAL_SERVER else None
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _check_address(sock: socket.socket, address: Any) -> None:
    if sock.family == socket.AF_UNIX:
        return
    host = address[0] if isinstance(address, tuple) else address
    if host in ("127.0.0.1", "::1", "localhost") or str(host).startswith("127."):
        return
    if _server_host is not None and _is_server(str(host)):
        return
    raise RuntimeError(f"test tried to reach the network: {address!r}")


def _is_server(host: str) -> bool:
    """Whether `host` is the test server's (its name, or an address it resolves to)."""
    if host == _server_host:
        return True
    try:
        return host in {info[4][0] for info in socket.getaddrinfo(_server_host, None)}
    except OSError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check_address(self, address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check_address(self, address)
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Settle pytest's temporary root, then, with BRAINBOT_TEST_DATABASE_URL, stop at
    once with what the server lacks rather than fail every test needing a database."""
    # pytest takes group and other rights off `pytest-of-<user>` the first time a
    # process asks for a tmp_path; the embedded server run as root adds them back so its
    # system user reaches a data folder in a tmp_path. A worker asking after another one's
    # embedded server started locked that server's user out (initdb: Permission
    # denied): every worker asks here, before any test runs.
    if hasattr(session.config, "workerinput"):
        session.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
        return
    _compile_sources()
    if session.config.pluginmanager.has_plugin("dsession"):  # xdist's workers follow
        _rewrite_tests(session.config)
    if EXTERNAL_SERVER is None:
        return
    import psycopg

    safe = make_url(EXTERNAL_SERVER).render_as_string(hide_password=True)
    try:
        with psycopg.connect(EXTERNAL_SERVER, connect_timeout=10) as conn:
            row = conn.execute(
                "SELECT rolsuper OR rolcreatedb,"
                " EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),"
                " current_setting('server_version')"
                " FROM pg_roles WHERE rolname = current_user"
            ).fetchone()
    except psycopg.Error as exc:
        row, lacks = None, f"cannot connect to {safe}: {exc}"
    else:
        lacks = (
            f"the role of {safe} may not create databases"
            if row is None or not row[0]
            else f"{safe} has no `vector` extension (pgvector)"
            if not row[1]
            else ""
        )
    if lacks:
        pytest.exit(f"BRAINBOT_TEST_DATABASE_URL: {lacks}", returncode=2)
    assert row is not None
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"testing against Postgres {row[2]} at {safe}")


def _compile_sources() -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, Python reads the project's compiled modules
    but never writes them: each of the few hundred brainbot processes the suite starts
    then compiles its ~300 modules again (~0.15 CPU-s a process). They are compiled once
    here, into the __pycache__ folders Python looks in (git and the image ignore them)."""
    if not sys.flags.dont_write_bytecode:
        return  # Python writes them itself, at the first import
    import compileall

    for package in ("adapters", "app", "bot", "scheduler", "storage"):
        compileall.compile_dir(ROOT / package, quiet=1)


def _rewrite_tests(config: pytest.Config) -> None:
    """pytest rewrites a test module's asserts when it imports it, and each of `make
    test`'s workers imports every test module: where bytecode is not written
    (PYTHONDONTWRITEBYTECODE), or on a clean clone where all start at once, every worker
    rewrote all ~390 of them (~6 CPU-s each). They are rewritten once here, before the
    workers start, into the cache pytest reads even where it writes none."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )
        from _pytest.pathlib import fnmatch_ex
    except ImportError:  # pytest's internals moved: each worker rewrites its own, as before
        return

    state = config.stash[assertstate_key]
    patterns = [*config.getini("python_files"), "conftest.py"]
    for arg in config.args:
        given = (config.invocation_params.dir / arg.partition("::")[0]).absolute()
        for module in [given] if given.is_file() else sorted(given.rglob("*.py")):
            if not any(fnmatch_ex(pattern, module) for pattern in patterns):
                continue
            pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
            if _read_pyc(module, pyc) is None:
                pyc.parent.mkdir(exist_ok=True)
                source_hash, code = _rewrite_test(module, config)
                _write_pyc(state, code, source_hash, pyc)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that start brainbot processes first, the longest of them (the seconds
    their `slow` mark names, about what one takes alone) before the rest; the sort keeps
    each group's order. `make test`'s workers each take the next test when free: a long
    one started last would leave the others idle."""

    def key(item: pytest.Item) -> tuple[bool, float]:
        slow = item.get_closest_marker("slow")
        return slow is None, -float(slow.kwargs.get("seconds", 0)) if slow else 0.0

    items.sort(key=key)


def on_database(url: str, database: str) -> str:
    """`url` with its database replaced by `database` (any form of URL)."""
    return make_url(url).set(database=database).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A Postgres with pgvector for the whole session; yields its admin URI: the server
    named by BRAINBOT_TEST_DATABASE_URL, else an embedded one started for the run."""
    if EXTERNAL_SERVER is not None:
        yield EXTERNAL_SERVER
        return
    root = Path(tempfile.mkdtemp(prefix="brainbot-pg-"))
    server, uri = start_postgres(root, durable=False)
    yield uri
    server.cleanup()
    # Stopping leaves the data folder (~55 MB a worker): every run left it in /tmp.
    shutil.rmtree(root, ignore_errors=True)


# Names of this process' databases: several workers (or runs) may share one server.
_PREFIX = f"brainbot_test_{os.getpid()}"
_db_numbers = itertools.count(1)


def _create(pg_server: str, name: str, template: str) -> str:
    import psycopg

    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return on_database(pg_server, name)


def _drop(pg_server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def vector_template(pg_server: str) -> Iterator[str]:
    """A database with nothing but the `vector` extension, made once per run; the
    server's own template1 stays as its administrator left it."""
    import psycopg

    name = f"{_PREFIX}_vector"
    with psycopg.connect(_create(pg_server, name, "template1"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield name
    _drop(pg_server, name)


@pytest.fixture(scope="session")
def migrated_template(pg_server: str, vector_template: str) -> Iterator[str]:
    """A database brought up to date once per run, as `brainbot run` does at its first
    start (migrations, then the tables registered later); every test clones it."""
    import asyncio

    from storage.db.connection import Database
    from storage.db.records import Records
    from storage.migrations import migrate

    async def bring_up_to_date(url: str) -> None:
        database = await Database.connect(url, Path(tempfile.gettempdir()))
        try:
            await migrate(database.engine)
            await Records(database.engine).create_schema()
        finally:
            await database.close()

    name = f"{_PREFIX}_migrated"
    asyncio.run(bring_up_to_date(_create(pg_server, name, vector_template)))
    yield name
    _drop(pg_server, name)


def _database(pg_server: str, template: str) -> Iterator[str]:
    name = f"{_PREFIX}_{next(_db_numbers)}"
    yield _create(pg_server, name, template)
    _drop(pg_server, name)


@pytest.fixture
def database_url(pg_server: str, migrated_template: str) -> Iterator[str]:
    """A database of one's own, with the current schema and no rows, for one test."""
    yield from _database(pg_server, migrated_template)


@pytest.fixture
def empty_database_url(pg_server: str, vector_template: str) -> Iterator[str]:
    """A database with nothing but the vector extension: for tests of migrations."""
    yield from _database(pg_server, vector_template)


@pytest.fixture
async def openai_fake() -> AsyncIterator[FakeOpenAI]:
    """The fake OpenAI-compatible API on 127.0.0.1, stopped after the test."""
    fake = FakeOpenAI()
    await fake.start()
    yield fake
    await fake.stop()
