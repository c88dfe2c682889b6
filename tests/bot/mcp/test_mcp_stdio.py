"""`brainbot mcp` over stdio, as a desktop client starts it: the MCP SDK's own client
spawns `python -m app.cli mcp` with a token in BRAINBOT_MCP_TOKEN. No `brainbot run`
is up, so the approval card goes out through Slack's Web API directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.commands.mcp import NO_TOKEN
from bot.custom_tools import TOOLS_FILE
from bot.mcp_server.server import REFUSED
from tests.bot.custom_tools.support import TOKEN, declare, tools_yaml
from tests.bot.helpers import git_log, notes_by_vault
from tests.bot.mcp.support import (
    add_people,
    card_with,
    cli,
    cli_process,
    make_token,
    stdio_session,
    text_of,
    vault_holding,
)
from tests.fakes.tool_server import ToolServer
from tests.production.conftest import Fakes

pytestmark = pytest.mark.slow  # starts brainbot processes

NOTE = {
    "category": "ideas",
    "title": "Lantern walk",
    "body": "A lantern walk along the canal in November",
    "confidence": 0.9,
    "tags": [],
    "fields": [],
}


@pytest.mark.slow(seconds=11)
async def test_capture_then_a_delete_that_waits_for_approve_in_slack(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    token = await make_token(env, "slack:U0ALICE")
    errors = tmp_path / "mcp-stderr.log"
    async with stdio_session(env, token, errors) as session:
        tools = (await session.list_tools()).tools
        annotated = {t.name: t.annotations for t in tools}
        assert annotated["get_entry"] is not None and annotated["get_entry"].readOnlyHint
        undo = annotated["undo"]
        assert undo is not None and undo.destructiveHint and not undo.idempotentHint

        filed = await session.call_tool("capture", NOTE)
        assert not filed.isError, text_of(filed)
        path = (filed.structuredContent or {})["saved"]["path"]
        vault = vault_holding(tmp_path / "data", path)
        assert "canal in November" in (vault / path).read_text()
        assert any(path in subject for subject in git_log(vault))

        # Appending is a small change (BRAINBOT_DIRECT_CHANGES): at once, as in chat.
        appended = await session.call_tool("update_entry", {"path": path, "append": "Bring tea."})
        assert not appended.isError, text_of(appended)
        assert "undo tool" in str(appended.structuredContent)
        assert "Bring tea." in (vault / path).read_text()
        commits = git_log(vault)

        held = await session.call_tool("delete_entry", {"path": path})
        data = held.structuredContent or {}
        assert data.get("status") == "waiting for approval", text_of(held)
        card = await card_with(fakes.slack, data["approval_id"])
        assert card.channel == "D0ALICE" and "Delete" in card.text
        assert (vault / path).exists() and git_log(vault) == commits

        code, out, _ = await cli(env, "mcp", "token", "--list")
        assert code == 0 and "laptop" in out and "live" in out
        token_id = out.split()[0]
        assert (await cli(env, "mcp", "token", "--revoke", token_id))[0] == 0
        refused = await session.call_tool("capture", {**NOTE, "title": "After revoke"})
        assert refused.isError and text_of(refused) == REFUSED
    assert notes_by_vault(tmp_path / "data")[vault.name] == [path]
    assert token not in errors.read_text()


@pytest.mark.slow(seconds=22)
async def test_a_person_without_a_chat_approves_on_the_command_line(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    token = await make_token(env, "telegram:77")
    async with stdio_session(env, token, tmp_path / "mcp-stderr.log") as session:
        filed = await session.call_tool("capture", NOTE)
        path = (filed.structuredContent or {})["saved"]["path"]
        vault = vault_holding(tmp_path / "data", path)
        commits = git_log(vault)
        held = await session.call_tool("delete_entry", {"path": path})
        data = held.structuredContent or {}
        said = text_of(held)
        assert not held.isError and data["status"] == "waiting for approval", said
        approval_id = data["approval_id"]
        assert f"`brainbot approve {approval_id}`" in said and "`brainbot approvals`" in said
        assert (vault / path).exists() and git_log(vault) == commits

        code, out, _ = await cli(env, "approvals")
        assert code == 0 and approval_id in out and "delete_entry" in out
        # A real process once: what the command's exit code and output are there.
        code, out, err = await cli_process(env, "approve", approval_id)
        assert code == 0 and out.startswith("Approved: Delete"), out + err
        assert not (vault / path).exists() and len(git_log(vault)) == len(commits) + 1
        code, out, err = await cli(env, "approve", approval_id)
        assert (code, out) == (2, "") and "Already decided (approved)" in err, err
        code, _, err = await cli(env, "reject", "no-such-id")
        assert code == 2 and "No approval 'no-such-id'" in err and "Nothing changed" in err
        assert (await cli(env, "approvals", "telegram:77"))[1] == "Nothing waits for approval.\n"

        kept = await session.call_tool("capture", {**NOTE, "title": "Keep me"})
        kept_path = (kept.structuredContent or {})["saved"]["path"]
        held = await session.call_tool("delete_entry", {"path": kept_path})
        code, out, _ = await cli(env, "reject", (held.structuredContent or {})["approval_id"])
        assert code == 0 and out.startswith("Rejected: Delete"), out
        assert (vault / kept_path).exists()

        # Unsure where it belongs: chat would show category buttons; MCP has none.
        filed = await session.call_tool("capture", {"text": "Odd thought"})
        said = text_of(filed)
        assert not filed.isError and "inbox/" in said, said
        assert "Pick a category" not in said, said
        assert said.endswith("choose: people, projects, ideas, admin (file it with move_entry)."), (
            said
        )
    assert fakes.slack.calls_of("chat.postMessage") == []


async def test_a_wrong_or_missing_token_is_an_error_the_client_shows(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    """A desktop client shows what a call answers, not the server's stderr: the server
    starts, and every call says why nothing ran."""
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    errors = tmp_path / "mcp-stderr.log"
    async with stdio_session(env, "bbmcp_not-a-real-one", errors) as session:
        assert "capture" in {t.name for t in (await session.list_tools()).tools}
        refused = await session.call_tool("capture", NOTE)
        assert refused.isError and text_of(refused) == REFUSED
        assert "`brainbot mcp token me`" in REFUSED
    async with stdio_session(env, "", errors) as session:
        refused = await session.call_tool("search_entries", {"query": "canal"})
        assert refused.isError and text_of(refused) == NO_TOKEN
    assert "unknown or was revoked" in errors.read_text()
    assert not any(notes_by_vault(tmp_path / "data").values())


@pytest.mark.slow(seconds=11)
async def test_the_card_goes_to_telegram_and_a_card_that_cannot_be_sent_changes_nothing(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url)  # Slack and Telegram both configured
    await add_people(env, tmp_path)
    errors = tmp_path / "mcp-stderr.log"
    async with stdio_session(env, await make_token(env, "telegram:42"), errors) as session:
        filed = await session.call_tool("capture", NOTE)
        path = (filed.structuredContent or {})["saved"]["path"]
        held = await session.call_tool("delete_entry", {"path": path})
        approval_id = (held.structuredContent or {})["approval_id"]
        assert "Telegram" in text_of(held)
        (card,) = await fakes.telegram.wait_for("sendMessage", within=20)
        assert card["chat_id"] == 42 and approval_id in str(card["reply_markup"])

    fakes.slack.fail("chat.postMessage", "channel_not_found")
    async with stdio_session(env, await make_token(env, "slack:U0ALICE"), errors) as session:
        filed = await session.call_tool("capture", {**NOTE, "title": "Canal walk"})
        path = (filed.structuredContent or {})["saved"]["path"]
        vault = vault_holding(tmp_path / "data", path)
        commits = git_log(vault)
        held = await session.call_tool("delete_entry", {"path": path})
        assert held.isError and "could not be sent" in text_of(held)
    assert (vault / path).exists() and git_log(vault) == commits


async def test_a_vault_tool_is_neither_listed_nor_called_over_mcp(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    """A vault's HTTP tools are chat's: over MCP a call to one is refused, so the
    request (with the vault's secret) is never sent."""
    service = ToolServer()
    await service.start()
    try:
        env = fakes.env(
            tmp_path,
            database_url,
            telegram=False,
            BRAINBOT_TOOL_HOSTS=service.host,
            BRAINBOT_SECRET_WEATHER_TOKEN=TOKEN,
        )
        await add_people(env, tmp_path)
        token = await make_token(env, "slack:U0ALICE")
        async with stdio_session(env, token, tmp_path / "mcp-stderr.log") as session:
            filed = await session.call_tool("capture", NOTE)
            vault = vault_holding(
                tmp_path / "data", (filed.structuredContent or {})["saved"]["path"]
            )
            declare(vault, tools_yaml(service))
            listed = {t.name for t in (await session.list_tools()).tools}
            assert "capture" in listed and "weather" not in listed
            called = await session.call_tool("weather", {"city": "Oslo", "units": None})
            assert called.isError and text_of(called) == (
                f"weather is a tool of your vault's {TOOLS_FILE}: it is offered in chat only, "
                "not over MCP. Nothing ran."
            )
            unknown = await session.call_tool("nothing_like_it", {})
            assert unknown.isError and text_of(unknown).startswith("unknown tool 'nothing_like_it'")
            assert "weather" not in text_of(unknown)
    finally:
        await service.stop()
    assert service.seen == []
