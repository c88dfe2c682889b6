"""The section, link and replace tools over MCP: listed with the annotations their
`@tool` flags give, and called as a desktop client calls them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.helpers import git_log
from tests.bot.mcp.support import (
    add_people,
    card_with,
    make_token,
    stdio_session,
    text_of,
    vault_holding,
)
from tests.production.conftest import Fakes

pytestmark = pytest.mark.slow  # starts brainbot processes

PLAN = {
    "category": "projects",
    "title": "Garden plan",
    "body": "Ask [[Sam]] about [[Compost Bins]].\n\n## Tasks\n- buy seeds\n\n## Notes\nSun.",
    "confidence": 0.9,
    "tags": [],
    "fields": [],
}


async def test_section_link_and_replace_tools_are_offered_and_run(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, telegram=False)
    await add_people(env, tmp_path)
    token = await make_token(env, "slack:U0ALICE")
    async with stdio_session(env, token, tmp_path / "mcp-stderr.log") as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        hints = {
            name: (a.readOnlyHint, a.destructiveHint, a.idempotentHint)
            for name in ("list_forward_links", "get_random_note", "search_replace")
            if (a := tools[name].annotations) is not None
        }
        assert hints == {
            "list_forward_links": (True, None, True),
            "get_random_note": (True, None, False),
            "search_replace": (False, True, False),
        }
        assert "Approve" in (tools["search_replace"].description or "")
        assert "section" in tools["update_entry"].inputSchema["properties"]
        assert "section" not in tools["get_entry"].inputSchema["required"]

        filed = await session.call_tool("capture", PLAN)
        path = (filed.structuredContent or {})["saved"]["path"]
        vault = vault_holding(tmp_path / "data", path)

        links = await session.call_tool("list_forward_links", {"path": path})
        assert not links.isError, text_of(links)
        found = (links.structuredContent or {})["links"]
        assert [(link["target"], link["missing"]) for link in found] == [
            ("Sam", True),
            ("Compost Bins", True),
        ]

        section = await session.call_tool("get_entry", {"path": path, "section": "Tasks"})
        assert (section.structuredContent or {})["body"] == "## Tasks\n- buy seeds"

        added = await session.call_tool(
            "update_entry", {"path": path, "section": "Tasks", "append": "- water"}
        )
        assert not added.isError, text_of(added)
        assert "## Tasks\n- buy seeds\n- water\n\n## Notes" in (vault / path).read_text()
        commits = git_log(vault)

        held = await session.call_tool(
            "search_replace", {"path": path, "find": "Sun.", "replace": "Full sun."}
        )
        data = held.structuredContent or {}
        assert data.get("status") == "waiting for approval", text_of(held)
        card = await card_with(fakes.slack, data["approval_id"])
        assert "Replace" in card.text and "+ Full sun." in str(card.blocks)
        assert git_log(vault) == commits  # nothing changed before Approve
