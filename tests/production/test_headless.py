"""`brainbot run` where there is no terminal and no chat platform (systemd, nohup,
`docker compose up -d`): it serves the API and MCP over HTTP until it is stopped, its
ready line names only the doors that are open, and a second one on the same port says
which doors it cannot open and exits non-zero."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import aiohttp
import pytest

from tests.bot.helpers import notes
from tests.production.process import Brainbot, command, console_env

pytestmark = pytest.mark.slow  # starts brainbot processes


def _messages(bot: Brainbot) -> list[str]:
    """The messages of its log (one JSON object a line)."""
    return [json.loads(line)["message"] for line in bot.log().splitlines() if line.startswith("{")]


def _ready_lines(bot: Brainbot) -> list[str]:
    return [m for m in _messages(bot) if m.startswith("brainbot is ready:")]


async def test_run_without_a_terminal_serves_the_api_until_sigterm(
    tmp_path: Path, database_url: str
) -> None:
    # Before: "brainbot is ready: console; http://…", then at once "stopping…", exit 0:
    # the console read the end of its empty input and took the process down with it.
    env = console_env(tmp_path, database_url)
    bot = await Brainbot(tmp_path, env).start()  # standard input: /dev/null
    try:
        await bot.wait_ready()
        (ready,) = _ready_lines(bot)
        assert ready == f"brainbot is ready: API, MCP; http://127.0.0.1:{bot.port}"
        code, out = await command(env, tmp_path, "token", "me", with_log=False)
        assert code == 0, out
        token = out.strip().splitlines()[-1]
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                f"{bot.url}/api/v1/capture",
                json={"text": "Ask the bakery about rye flour", "category": "admin"},
                headers={"Authorization": f"Bearer {token}"},
            ) as response,
        ):
            filed = await response.json()
            assert response.status == 201, filed
        status, _ = await bot.get("/readyz")
        assert status == 200
        assert bot.process is not None and bot.process.returncode is None
        bot.signal(signal.SIGTERM)
        assert await bot.wait() == 0
    finally:
        await bot.stop()
    assert "brainbot stopped" in bot.log() and "Traceback" not in bot.log()
    assert notes(tmp_path / "data" / "vault") == [filed["path"]]


async def test_a_second_run_on_the_same_port_says_which_doors_are_lost(
    tmp_path: Path, database_url: str
) -> None:
    # Before: the second run said "port … is already in use; chatting without /healthz,
    # /readyz and /metrics", then "brainbot is ready: console; http://…:PORT" (the
    # first one's port), and ended with exit 0 at the end of its empty input.
    env = console_env(tmp_path, database_url)
    first = await Brainbot(tmp_path, env).start()
    try:
        await first.wait_ready()
        second = await Brainbot(tmp_path, first.env, name="second").start()
        assert await second.wait() != 0
    finally:
        await first.stop()
    lost = [m for m in _messages(second) if "already in use" in m]
    assert len(lost) == 1, second.log()
    assert f"port {first.port} on 127.0.0.1 is already in use" in lost[0]
    assert "so these doors cannot open: API, MCP:" in lost[0] and "BRAINBOT_HTTP_PORT" in lost[0]
    assert not _ready_lines(second)
    assert "Traceback" not in second.log()
