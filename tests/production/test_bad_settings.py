"""A setting with a bad value stops every start with one line naming the variable, the
value and an example (no traceback, no pydantic dump), before anything is opened;
`brainbot doctor` reports the same line as a problem."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.in_process import brainbot_in_thread
from tests.production.process import console_env

BAD = [
    ("BRAINBOT_TIMEZONE", "Mars/Olympus", "Europe/Berlin"),
    ("BRAINBOT_DIGEST_TIME", "25:99", "07:30"),
    ("BRAINBOT_REMINDER_TIME", "8am", "07:30"),
    ("BRAINBOT_HTTP_PORT", "99999", "8080"),
    ("OPENAI_BASE_URL", "localhost:11434", "http://localhost:11434/v1"),
    ("BRAINBOT_CATEGORIES", "notes,../etc", "people,projects"),
    ("BRAINBOT_MAX_NOTE_BYTES", "1MB", "1000000"),
    ("BRAINBOT_APPROVAL_TOOLS", "frobnicate", "delete"),
]


async def brainbot(tmp_path: Path, *args: str, **settings: str) -> tuple[int, str, str]:
    """`brainbot ARGS` with `settings`, run in this process: what it prints, and its code."""
    env = console_env(tmp_path, None, **settings)
    done = await brainbot_in_thread(args, env, tmp_path)
    return done.returncode, done.stdout, done.stderr


async def brainbot_process(tmp_path: Path, *args: str, **settings: str) -> tuple[int, str, str]:
    """`brainbot ARGS` with `settings`, a real process: its exit code and what it printed."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        *args,
        env=console_env(tmp_path, None, **settings),
        cwd=tmp_path,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(("name", "value", "example"), BAD)
@pytest.mark.parametrize("command", ["run", "chat"])
async def test_a_bad_value_stops_the_start_with_one_line(
    tmp_path: Path, command: str, name: str, value: str, example: str
) -> None:
    code, _, err = await brainbot(tmp_path, command, **{name: value})
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"brainbot: {name}="), err
    assert repr(value) in lines[0] and example in lines[0], err
    assert "Traceback" not in err and "validation error" not in err
    assert not (tmp_path / "data").exists()  # nothing was opened or made


@pytest.mark.slow  # a real brainbot process
async def test_each_bad_variable_has_its_line(tmp_path: Path) -> None:
    """A real process: the start stops with exit code 2 and only these lines."""
    code, _, err = await brainbot_process(
        tmp_path, "chat", BRAINBOT_TIMEZONE="Mars/Olympus", BRAINBOT_DIGEST_TIME="8am"
    )
    assert code == 2
    assert sorted(line.split("=")[0] for line in err.strip().splitlines()) == [
        "brainbot: BRAINBOT_DIGEST_TIME",
        "brainbot: BRAINBOT_TIMEZONE",
    ]


async def test_doctor_reports_a_bad_value(tmp_path: Path) -> None:
    code, out, _ = await brainbot(
        tmp_path, "doctor", BRAINBOT_TIMEZONE="Mars/Olympus", BRAINBOT_DIGEST_TIME="8am"
    )
    assert code == 1
    assert "PROBLEM  configuration: BRAINBOT_TIMEZONE='Mars/Olympus' is not a time zone" in out
    assert "PROBLEM  configuration: BRAINBOT_DIGEST_TIME='8am' is not a time of day" in out
    assert "2 problem(s)." in out
    assert "No problems found." not in out


@pytest.mark.parametrize("command", [["approvals"], ["mcp", "token", "me"], ["digest"]])
async def test_a_database_a_command_cannot_open_is_one_line(
    tmp_path: Path, database_url: str, command: list[str]
) -> None:
    missing = make_url(database_url).set(database="no_such_database")
    missing = missing.render_as_string(hide_password=False)
    (tmp_path / "data" / "vault").mkdir(parents=True)  # a brain whose database is gone
    code, _, err = await brainbot(tmp_path, *command, DATABASE_URL=missing)
    assert code == 1, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("brainbot: ")], err
