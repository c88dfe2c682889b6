"""A team note over MCP (streamable HTTP at /mcp of a real `brainbot run`) follows the
team's Slack channel: once a membership is a day old, the channel is asked; who left
gets no team hits and a clear refusal for the note, who stayed reads it."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.db.connection import async_url
from tests.bot.helpers import notes_by_vault
from tests.bot.mcp.support import make_token, text_of
from tests.bot.mcp.test_mcp_http import mcp_session
from tests.fakes.slack_payloads import event_body, mention_event, post_signed
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts a brainbot process


async def a_day_ago(database_url: str) -> None:
    """Every team membership was last confirmed two days ago."""
    engine = create_async_engine(async_url(database_url))
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text("UPDATE vault_members SET checked_at = now() - interval '2 days'")
            )
    finally:
        await engine.dispose()


@pytest.mark.slow(seconds=8)
async def test_who_left_the_team_channel_is_refused_the_team_vault_over_mcp(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(
        tmp_path, database_url, telegram=False, BRAINBOT_TEAM_VAULTS="slack:C0TEAM=Team Ops"
    )
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        async with aiohttp.ClientSession() as http:
            url = f"{bot.url}/slack/events"
            said = mention_event("On-call rota for the winter", channel="C0TEAM")
            await post_signed(http, url, event_body(said))
            joined = mention_event("count me in", user="U0BOB", channel="C0TEAM")
            await post_signed(http, url, event_body(joined))
            await fakes.slack.wait_for("chat.postMessage", count=2, within=20)
        (rota,) = [n for n in notes_by_vault(tmp_path / "data")["team-ops"] if "rota" in n]
        alice = await make_token(env, "slack:U0ALICE")
        bob = await make_token(env, "slack:U0BOB")
        async with mcp_session(bot.url, bob) as session:
            found = await session.call_tool("search_entries", {"query": "rota"})
            assert f"team-ops:{rota}" in text_of(found)  # confirmed by his message today

        fakes.slack.set_members("C0TEAM", "U0ALICE")  # Bob leaves the channel
        await a_day_ago(database_url)
        async with mcp_session(bot.url, bob) as session:
            found = await session.call_tool("search_entries", {"query": "rota"})
            assert "team-ops" not in text_of(found), text_of(found)
            refused = await session.call_tool("get_entry", {"path": f"team-ops:{rota}"})
            assert refused.isError
            assert "not a member" in text_of(refused) and "team-ops" in text_of(refused)
        async with mcp_session(bot.url, alice) as session:
            got = await session.call_tool("get_entry", {"path": f"team-ops:{rota}"})
            assert not got.isError and "winter" in text_of(got)
        assert fakes.slack.ok_calls("conversations.members")
    finally:
        assert await bot.stop() == 0, bot.log()
    assert "no longer in slack:C0TEAM; membership removed" in bot.log()
    assert "Traceback" not in bot.log()
