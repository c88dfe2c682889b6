"""What an MCP client sends enters like a chat message's words: a NUL (valid JSON as
`\\u0000`, but no database text holds it) or a lone surrogate is kept as U+FFFD, so the
capture is filed and searchable instead of failing."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from app.mcp_wiring import mcp_calls
from bot.events import Conversation, Reply
from tests.bot.helpers import vault_of
from tests.fakes.brain import running_brain
from tests.scheduler.outbox import add_ada


async def test_a_nul_in_a_capture_over_mcp_is_kept_replaced(
    tmp_path: Path, database_url: str
) -> None:
    async def deliver(conversation: Conversation, reply: Reply) -> None:
        return None

    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain, platform="telegram", user_id="42")
        calls = mcp_calls(brain, deliver)
        capture = {
            "category": "ideas",
            "title": "Tea\x00time",
            "body": "oolong\x00and \ud800 sencha",
            "confidence": 0.9,
            "tags": ["te\x00a"],
            "fields": [],
        }
        filed = await calls.call(ada.id, "capture", capture)
        assert not filed.isError, filed
        path = (filed.structuredContent or {})["saved"]["path"]
        note = frontmatter.load(await vault_of(brain, "telegram", "42") / path)
        assert note["title"] == "Tea\ufffdtime" and note["tags"] == ["te\ufffda"]
        assert note.content == "oolong\ufffdand \ufffd sencha"
        found = await calls.call(ada.id, "search_entries", {"query": "sencha\x00"})
        assert not found.isError and path in str(found.structuredContent)
