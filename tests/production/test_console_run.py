"""The console: `brainbot chat` handles piped input once each line and stops cleanly at
its end; `brainbot run` without Slack or Telegram settings chats at a terminal, and
SIGTERM stops it while it waits for a line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.bot.helpers import notes
from tests.production.process import Brainbot, console_env, start_console, terminal

pytestmark = pytest.mark.slow  # starts brainbot processes


async def test_piped_lines_are_handled_once_and_end_of_input_stops(
    tmp_path: Path, database_url: str
) -> None:
    env = console_env(tmp_path, database_url)
    process = await start_console(
        tmp_path, env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    lines = "project: paint the fence\nproject: fix the gate\n/list projects\n"
    out, err = await asyncio.wait_for(process.communicate(lines.encode()), 60)

    assert process.returncode == 0, err.decode()
    assert out.decode().count("Saved to projects/") == 2
    assert [n for n in notes(tmp_path / "data" / "vault") if n.startswith("projects/")] == [
        "projects/fix-the-gate.md",
        "projects/paint-the-fence.md",
    ]


async def test_sigterm_stops_a_console_still_waiting_for_a_line(
    tmp_path: Path, database_url: str
) -> None:
    bot = Brainbot(tmp_path, console_env(tmp_path, database_url))
    with terminal() as (_, read):  # nothing is typed
        bot.process = await start_console(
            tmp_path,
            bot.env,
            command="run",
            stdin=read,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=bot.log_path.open("wb"),
        )
        await bot.wait_ready()
        log = tmp_path / "data" / "logs" / "brainbot.log"  # a terminal chat's log
        assert "brainbot is ready: console, API, MCP; http://" in log.read_text()

        assert await bot.stop() == 0
