"""MCP calls wired to a running brainbot: the engine's runner, and approval cards sent to
the person's direct chat the way digests and reminders find it."""

from __future__ import annotations

from app.platforms import titles
from app.runtime import Runtime
from bot.events import Deliver, EventHandler, NoRoute, Reply
from bot.mcp_server import EventDoor, McpCalls, NoChat, SendCard
from scheduler.delivery import home_conversations
from storage.db import Records

NO_HOME = (
    f"you have no direct chat with brainbot in {titles()} yet to approve it in: "
    "send it a message there first"
)


def card_sender(records: Records, deliver: Deliver) -> SendCard:
    """Send a card to the person's first reachable direct chat (the account they
    started with first); NoChat when there is none."""

    async def send(user_id: int, card: Reply) -> str:
        homes = await home_conversations(records, user_id)
        if not homes:
            raise NoChat(NO_HOME)
        unreachable: list[str] = []
        for conversation in homes:
            try:
                await deliver(conversation, card)
            except NoRoute as exc:
                unreachable.append(exc.platform)
                continue
            return conversation.platform
        raise NoChat(
            f"{' and '.join(unreachable)} is not configured here, so the approval card "
            "cannot be sent"
        )

    return send


def mcp_calls(runtime: Runtime, deliver: Deliver, handle: EventHandler | None = None) -> McpCalls:
    """The calls of MCP clients, as the runtime's people; a capture goes to `handle`
    (the engine's, or the gate that holds events while a restart re-processes what a
    crash cut short) to be recorded before it is processed."""
    engine = runtime.engine
    return McpCalls(
        runner=engine.runner,
        buttons=engine.buttons,
        people=engine.people,
        vaults=runtime.vaults,
        records=runtime.records,
        settings=runtime.settings,
        send_card=card_sender(runtime.records, deliver),
        clock=engine.clock,
        door=EventDoor(handle or engine.handle, engine.captured_by, engine.access.vouch),
    )
