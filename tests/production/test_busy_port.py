"""A port someone else holds: the terminal chat goes on without the HTTP server (saying
which doors it lost), and a platform run stops with one line that names the port and
the setting to change."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.helpers import notes
from tests.production.conftest import Fakes
from tests.production.process import Brainbot, console_env, start_console, terminal

pytestmark = pytest.mark.slow  # starts brainbot processes


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another program listens on for the whole test."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


async def test_the_console_chats_on_when_the_port_is_taken(
    tmp_path: Path, database_url: str, busy_port: int
) -> None:
    env = console_env(tmp_path, database_url, BRAINBOT_HTTP_PORT=str(busy_port))
    with terminal() as (typed, read):
        process = await start_console(
            tmp_path,
            env,
            command="run",
            stdin=read,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert process.stdout is not None
        os.write(typed, b"project: paint the fence\n")
        said = b""
        while b"Saved to" not in said:
            said += await asyncio.wait_for(process.stdout.readline(), 60)
        os.write(typed, b"/quit\n")
        await asyncio.wait_for(process.wait(), 60)

    assert process.returncode == 0
    assert b"Saved to projects/paint-the-fence.md" in said
    log = (tmp_path / "data" / "logs" / "brainbot.log").read_text()  # a terminal chat's log
    assert f"port {busy_port} on 127.0.0.1 is already in use" in log
    assert "these doors cannot open: API, MCP" in log and "chatting on without them" in log
    assert "brainbot is ready: console\n" in log  # no API, MCP or address it does not hold
    assert "projects/paint-the-fence.md" in notes(tmp_path / "data" / "vault")


async def test_a_platform_run_names_the_port_and_the_setting(
    tmp_path: Path, database_url: str, fakes: Fakes, busy_port: int
) -> None:
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_HTTP_PORT=str(busy_port))
    bot = await Brainbot(tmp_path, env).start()

    assert await bot.wait() == 1
    complaints = [line for line in bot.log().splitlines() if "already in use" in line]
    assert len(complaints) == 1, bot.log()
    assert f"port {busy_port}" in complaints[0]
    assert "BRAINBOT_HTTP_PORT" in complaints[0]
    assert "Traceback" not in bot.log()
