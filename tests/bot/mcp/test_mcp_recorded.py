"""An MCP capture is recorded before it is processed, like every chat message: a crash
mid-capture is filed at the next start (nothing lost), and a client that sends the
call again with its idempotency key (`_meta.idempotency_key`) gets the same note
(nothing doubled). Real engine, vault, Postgres and MCP SDK client, in memory."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, types
from mcp.shared.memory import create_connected_server_and_client_session

from app.mcp_wiring import mcp_calls
from app.recovery import resume_unfinished
from app.runtime import Runtime
from bot.events import Conversation, Reply
from bot.mcp_server import build_server
from storage.db import Person, TokenInfo
from storage.db.vault_lock import vault_write_lock
from tests.bot.helpers import notes, vault_of
from tests.fakes.brain import running_brain
from tests.scheduler.outbox import add_ada

WORDS = {"text": "Oil the bike chain before the rain", "category": "admin"}
KEY = {"idempotency_key": "shortcut-7"}


async def _nobody(conversation: Conversation, reply: Reply) -> None:
    return None


@asynccontextmanager
async def client(brain: Runtime, person: Person) -> AsyncIterator[ClientSession]:
    """An MCP client acting with a live token of `person`'s."""
    info, _ = await brain.records.mcp_tokens.create(person.id, "desk", brain.engine.clock())

    async def identify(request: object) -> TokenInfo | None:
        return info

    server = build_server(mcp_calls(brain, _nobody), identify)
    async with create_connected_server_and_client_session(server) as session:
        yield session


def path_of(result: types.CallToolResult) -> str:
    assert not result.isError, result.content
    data: dict[str, Any] = result.structuredContent or {}
    return str(data["saved"]["path"])


async def test_a_capture_sent_again_with_its_key_is_one_note(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain, platform="telegram", user_id="42")
        async with client(brain, ada) as session:
            first = await session.call_tool("capture", WORDS, meta=KEY)
            again = await session.call_tool("capture", WORDS, meta=KEY)
            other = await session.call_tool("capture", WORDS)  # no key: a new capture
        vault = await vault_of(brain, "telegram", "42")
        filed = notes(vault)
    assert path_of(again) == path_of(first) == "admin/oil-the-bike-chain-before-the-rain.md"
    assert path_of(other) != path_of(first)
    assert filed == sorted([path_of(first), path_of(other)])


async def test_a_capture_cut_short_by_a_crash_is_filed_at_the_next_start_once(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        ada = await add_ada(brain, platform="telegram", user_id="42")
        vault = await brain.vaults.of_person(ada.id, ada.name, brain.engine.clock())
        # Another writer holds the vault, so the capture is still waiting to be written
        # when the process dies (its MCP session, and the call, are cut off).
        async with (
            vault_write_lock(brain.database.engine, vault.id),
            client(brain, ada) as session,
        ):
            call = asyncio.create_task(session.call_tool("capture", WORDS, meta=KEY))
            recorded = []
            for _ in range(400):
                recorded = await brain.records.events.unfinished()
                if recorded:
                    break
                await asyncio.sleep(0.05)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
        assert [(row.platform, row.kind) for row in recorded] == [("mcp", "capture")]
        assert notes(await vault_of(brain, "telegram", "42")) == []

    async with running_brain(tmp_path, database_url) as restarted:
        assert await resume_unfinished(restarted.engine, restarted.liveness, _nobody) == 1
        ada = await restarted.records.people.get(ada.id)
        assert ada is not None
        async with client(restarted, ada) as session:
            again = await session.call_tool("capture", WORDS, meta=KEY)  # the client retries
        filed = notes(await vault_of(restarted, "telegram", "42"))
    assert filed == ["admin/oil-the-bike-chain-before-the-rain.md"]
    assert path_of(again) == filed[0]
