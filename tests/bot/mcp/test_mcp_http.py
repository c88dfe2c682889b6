"""brainbot over streamable HTTP at /mcp of a real `brainbot run` process, driven by the
MCP SDK's own client: the tools and their annotations, a capture that lands in the
vault, reads, and a delete that waits for Approve in Slack and happens on the press."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.bot.helpers import git_log, notes_by_vault
from tests.bot.mcp.support import buttons, card_with, make_token, text_of
from tests.fakes.slack_payloads import (
    block_actions,
    dm_event,
    event_body,
    interactive_body,
    post_signed,
)
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes

CAPTURE = {
    "category": "ideas",
    "title": "Moss garden",
    "body": "A moss garden under the north window",
    "confidence": 0.9,
    "tags": ["garden"],
    "fields": [],
}


@asynccontextmanager
async def mcp_session(
    url: str, token: str, extra: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}", **(extra or {})}
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def wait_until_gone(path: Path, within: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while await asyncio.to_thread(path.exists):
        assert asyncio.get_running_loop().time() < deadline, f"{path} is still there"
        await asyncio.sleep(0.05)


async def test_tools_capture_read_and_a_delete_approved_in_slack(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        async with aiohttp.ClientSession() as http:
            # Alice talks to the bot in Slack first: her DM is where cards go.
            await post_signed(http, f"{bot.url}/slack/events", event_body(dm_event("Hello")))
            await fakes.slack.wait_for("chat.postMessage", within=20)
            token = await make_token(env, "slack:U0ALICE")

            async with mcp_session(bot.url, token) as session:
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert {"capture", "search_entries", "get_entry", "delete_entry"} <= set(tools)
                search = tools["search_entries"].annotations
                assert search is not None and search.readOnlyHint is True
                delete = tools["delete_entry"].annotations
                assert delete is not None
                assert (delete.readOnlyHint, delete.destructiveHint) == (False, True)
                capture = tools["capture"].annotations
                assert capture is not None
                assert (capture.readOnlyHint, capture.destructiveHint) == (False, False)
                # Options may be left out; what the tool cannot do without is required.
                assert tools["search_entries"].inputSchema["required"] == ["query"]

                filed = await session.call_tool("capture", CAPTURE)
                assert not filed.isError, text_of(filed)
                path = (filed.structuredContent or {})["saved"]["path"]
                (vault_name,) = [
                    v for v, notes in notes_by_vault(tmp_path / "data").items() if path in notes
                ]
                vault = next((tmp_path / "data").rglob(vault_name))
                assert "north window" in (vault / path).read_text()
                assert any(path in subject for subject in git_log(vault))

            # A client that sends a capture again gives it a key: over HTTP, a header.
            keyed = {"Idempotency-Key": "moss-2"}
            again = {**CAPTURE, "title": "Moss again"}
            async with mcp_session(bot.url, token, keyed) as retrying:
                first = await retrying.call_tool("capture", again)
                second = await retrying.call_tool("capture", again)
            kept = (first.structuredContent or {})["saved"]["path"]
            assert (second.structuredContent or {})["saved"]["path"] == kept != path
            assert (
                sum("moss-again" in n for n in notes_by_vault(tmp_path / "data")[vault_name]) == 1
            )

            async with mcp_session(bot.url, token) as session:
                found = await session.call_tool("search_entries", {"query": "moss"})
                assert path in text_of(found) or path in str(found.structuredContent)
                got = await session.call_tool("get_entry", {"path": path})
                assert "north window" in text_of(got) + str(got.structuredContent)

                commits = len(git_log(vault))
                held = await session.call_tool("delete_entry", {"path": path})
                assert not held.isError, text_of(held)
                data = held.structuredContent or {}
                assert data["status"] == "waiting for approval"
                assert "Waiting for approval" in text_of(held) and "Slack" in text_of(held)
                assert (vault / path).exists() and len(git_log(vault)) == commits

                card = await card_with(fakes.slack, data["approval_id"])
                assert card.channel == "D0ALICE"
                approve = next(
                    b
                    for b in buttons(card)
                    if b["value"] == data["approval_id"] and "approve" in b["action_id"]
                )
                press = block_actions(
                    action_id=approve["action_id"], value=approve["value"], message_ts=card.ts
                )
                status, _ = await post_signed(
                    http, f"{bot.url}/slack/events", interactive_body(press)
                )
                assert status == 200
                await wait_until_gone(vault / path)
                assert len(git_log(vault)) == commits + 1

                bad = await session.call_tool("get_entry", {"path": 42, "extra": True})
                assert bad.isError and "invalid arguments" in text_of(bad)
                assert len(git_log(vault)) == commits + 1
    finally:
        assert await bot.stop() == 0, bot.log()
    assert "Traceback" not in bot.log()
    assert token not in bot.log()


async def test_a_missing_or_unknown_token_is_refused(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        async with aiohttp.ClientSession() as http:
            for headers in ({}, {"Authorization": "Bearer bbmcp_made-up"}):
                async with http.post(f"{bot.url}/mcp", json=body, headers=headers) as response:
                    assert response.status == 401
                    assert "brainbot mcp token" in (await response.json())["error"]
                    assert response.headers["WWW-Authenticate"].startswith("Bearer")
        with pytest.raises(BaseException) as refused:  # the SDK wraps it in exception groups
            async with mcp_session(bot.url, "bbmcp_made-up"):
                pass
        assert "401" in repr(refused.value) or isinstance(refused.value, httpx.HTTPStatusError)
    finally:
        assert await bot.stop() == 0, bot.log()
