"""`brainbot run` without Slack or Telegram settings chats on the terminal; piped
input is handled once each, and the end of input stops the process cleanly."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.bot.helpers import notes
from tests.production.process import ROOT, Brainbot, clean_env, free_port


async def test_piped_lines_are_handled_once_and_end_of_input_stops(
    tmp_path: Path, database_url: str
) -> None:
    env = clean_env(
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        DATABASE_URL=database_url,
        BRAINBOT_EMBEDDINGS="none",
        BRAINBOT_HTTP_PORT=str(free_port()),
        PYTHONPATH=str(ROOT),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "run",
        env=env,
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
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
    env = clean_env(
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        DATABASE_URL=database_url,
        BRAINBOT_EMBEDDINGS="none",
        PYTHONPATH=str(ROOT),
    )
    bot = Brainbot(tmp_path, env)
    bot.process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "run",
        env=bot.env,
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,  # open, and nothing typed
        stdout=asyncio.subprocess.DEVNULL,
        stderr=bot.log_path.open("wb"),
    )
    await bot.wait_ready()

    assert await bot.stop() == 0
