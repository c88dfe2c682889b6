"""`brainbot run` without Slack or Telegram settings chats on the terminal; piped
input is handled once each, and the end of input stops the process cleanly."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.bot.helpers import notes
from tests.production.process import Brainbot, console_env, free_port, start_console

pytestmark = pytest.mark.slow  # starts brainbot processes


async def test_piped_lines_are_handled_once_and_end_of_input_stops(
    tmp_path: Path, database_url: str
) -> None:
    env = console_env(tmp_path, database_url, BRAINBOT_HTTP_PORT=str(free_port()))
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
    # Standard input stays open, and nothing is typed.
    bot.process = await start_console(
        tmp_path, bot.env, stdout=asyncio.subprocess.DEVNULL, stderr=bot.log_path.open("wb")
    )
    await bot.wait_ready()

    assert await bot.stop() == 0
