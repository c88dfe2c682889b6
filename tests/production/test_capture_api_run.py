"""The capture API as a person sets it up: `brainbot run` makes the brain, `brainbot token
me` prints the token as its last line, and the running `brainbot run` files what is
posted to /api/v1/capture into the owner's vault (the one the console and MCP use)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.bot.helpers import notes
from tests.production.conftest import Fakes
from tests.production.process import Brainbot, command

pytestmark = pytest.mark.slow  # starts brainbot processes


async def test_a_token_from_the_command_line_files_a_capture_into_the_owner_s_vault(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, slack=None)
    bot = await Brainbot(tmp_path, env).start()  # the first start makes the brain
    try:
        await bot.wait_ready()
        code, out = await command(env, tmp_path, "token", "me", "--label", "iphone", with_log=False)
        assert code == 0, out
        token = out.strip().splitlines()[-1]
        assert " " not in token and len(token) >= 20
        async with aiohttp.ClientSession() as session:
            async with session.post(
                f"{bot.url}/api/v1/capture",
                json={"text": "Ask the bakery about rye flour", "category": "admin"},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"},
            ) as response:
                body = await response.json()
                assert response.status == 201, body
            async with session.post(
                f"{bot.url}/api/v1/capture",
                json={"text": "x"},
                headers={"Authorization": "Bearer wrong"},
            ) as refused:
                assert refused.status == 401
    finally:
        assert await bot.stop() == 0, bot.log()
    assert body["path"].startswith("admin/")
    assert notes(tmp_path / "data" / "vault") == [body["path"]]
    code, listed = await command(env, tmp_path, "mcp", "token", "--list")
    assert code == 0 and "iphone" in listed  # one store: MCP lists the API's token
