"""One MCP tool call, run as a person exactly as chat would run it.

The call goes through the engine's ToolRunner (argument validation, approvals, the
tool log) on the person's own vault. When the runner holds the call for approval, its
card (summary, preview, Approve / Reject) is sent to the person's direct chat in Slack
or Telegram; the press there, handled by `brainbot run`, runs it. A person with no
chat to send it to decides it on the command line instead (`brainbot approvals`,
`brainbot approve ID`, `brainbot reject ID`), through the same button handler.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.buttons import Buttons
from bot.capture import Captured
from bot.config import Settings
from bot.custom_tools import TOOLS_FILE
from bot.events import (
    CaptureRequest,
    Conversation,
    EventHandler,
    InboundMessage,
    Reply,
    Sender,
    keyed_event_id,
)
from bot.mcp_server.tools import arguments_for
from bot.people import People
from bot.tools import Outcome, ToolContext, ToolResult, ToolRunner, ToolSpec
from storage import Author, Vaults
from storage.db import Person, Records

if TYPE_CHECKING:
    from mcp import types

log = logging.getLogger(__name__)

PLATFORM = "mcp"
# The commands that list and decide held calls where no chat shows their card.
PENDING = "brainbot approvals"
APPROVE = "brainbot approve"
REJECT = "brainbot reject"
FILED_WITHIN = 10.0  # seconds a call sent again waits for its first sending's note


class NoChat(Exception):
    """The person has no Slack or Telegram chat this process can send a card to."""


# Sends a card to the person's direct chat; returns the platform it went to.
SendCard = Callable[[int, Reply], Awaitable[str]]


@dataclass(frozen=True)
class EventDoor:
    """The engine's door for events (bot.engine): an MCP capture is recorded before it
    is processed, as every chat message is, once per event id; what it came to is read
    back for the answer."""

    handle: EventHandler
    captured_by: Callable[[str], Captured | None]
    vouch: Callable[[Sender], None]  # the token vouches for its person's `mcp` identity


@dataclass
class McpCalls:
    """What a call needs from a running brainbot: the engine's runner and people, the
    vaults and records, and a way to reach the person's chat."""

    runner: ToolRunner
    buttons: Buttons
    people: People
    vaults: Vaults
    records: Records
    settings: Settings
    send_card: SendCard
    clock: Callable[[], datetime]
    # The engine's door for events: `capture` is recorded and goes the one capture path.
    door: EventDoor | None = None
    _known: set[int] = field(default_factory=set, init=False)  # people with an `mcp` identity

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        """What MCP lists and calls: the registered tools (built-ins and plugins). A
        vault's own HTTP tools are offered in chat only, so a call to one is refused
        rather than run unlisted."""
        return self.runner.tools

    async def call(
        self, user_id: int, name: str, arguments: dict[str, Any], client: str = "", key: str = ""
    ) -> types.CallToolResult:
        """Run (or hold for approval) `name` as user `user_id`; never raises for what
        the client sent. `key`: the client's idempotency key for the call, if it gave one
        (a capture sent again with it files nothing more)."""
        person = await self._person(user_id)
        if person is None:
            return _error("the person this token belongs to no longer exists")
        ctx = await self._context(person, client)
        spec = self.tools.get(name)
        if spec is None:
            if name in self.runner.tools_for(ctx):
                return _error(
                    f"{name} is a tool of your vault's {TOOLS_FILE}: it is offered in chat "
                    "only, not over MCP. Nothing ran."
                )
            return _error(f"unknown tool {name!r}; known: {', '.join(sorted(self.tools))}")
        if spec.captures and self.door is not None:
            return await self._capture(ctx, spec, arguments, client, key)
        outcome = await self.runner.call(ctx, name, arguments_for(spec, arguments))
        if not outcome.ok:
            return _error(str(json.loads(outcome.content).get("error", "the call failed")))
        if outcome.approval is not None:
            return await self._held(ctx, outcome, outcome.approval)
        assert outcome.result is not None
        data = json.loads(outcome.content)
        if "undo" in data:  # chat's Undo button is not here; the undo tool is
            data["undo"] = "done at once; the undo tool reverts it"
        return _result(_without_buttons(outcome.result), data)

    async def _capture(
        self, ctx: ToolContext, spec: ToolSpec, arguments: dict[str, Any], client: str, key: str
    ) -> types.CallToolResult:
        """`capture` on the one capture path: the person's words (`text` or `body`)
        alone will do; a category given is honoured, one that is none is refused. It is
        recorded before it is processed, as a chat message is: a crash mid-capture is
        filed at the next start, and a call sent again with its idempotency key files
        nothing more."""
        assert self.door is not None
        try:
            args = spec.arguments.model_validate(arguments_for(spec, arguments))
        except ValidationError as exc:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            return _error(f"invalid arguments: {detail}")
        values = args.model_dump()
        request = CaptureRequest(
            str(values.get("body") or ""),
            category=str(values.get("category") or ""),
            title=str(values.get("title") or ""),
            tags=tuple(str(t) for t in values.get("tags") or ()),
            fields=tuple((f["name"], f["value"]) for f in values.get("fields") or ()),
        )
        person = ctx.person
        sender = Sender(PLATFORM, str(person.id), person.name)
        if person.id not in self._known:
            # The token vouches for the person: their `mcp` identity leads to them.
            await self.records.people.add_identity(
                person.id, PLATFORM, str(person.id), person.name, self.clock()
            )
            self.door.vouch(sender)
            self._known.add(person.id)
        event_id = keyed_event_id(person.id, key)
        event = InboundMessage(
            event_id,
            Conversation(PLATFORM, str(person.id)),
            sender,
            request.words,
            self.clock(),
            source={"client": client} if client else {},
            capture=request,
        )
        replies = await self.door.handle(event)
        if replies and replies[0].not_kept:  # faster than BRAINBOT_RATE_LIMIT: not recorded
            return _error(replies[0].text)
        captured = await self._came_to(ctx, f"{PLATFORM}:{event_id}", wait=not replies)
        if captured is not None and not isinstance(captured, Captured):
            return captured  # the note an earlier sending filed
        if captured is None:
            if not replies:
                return _error(
                    "a capture with this idempotency key is still being filed; ask again soon"
                )
            return _error(" ".join(reply.text for reply in replies) or "nothing was filed")
        said = captured.said
        if captured.refused:
            return _error(said)
        saved = captured.saved_before
        outcome = captured.outcome
        if saved is not None or outcome is None:  # a link saved before took the words
            return _result(said, {"saved_before": saved})
        return _result(said, json.loads(outcome.content))

    async def _came_to(
        self, ctx: ToolContext, event_key: str, *, wait: bool
    ) -> Captured | types.CallToolResult | None:
        """What the capture `event_key` came to: in this process, or (a call sent again
        with its key, filed by another process or before a restart) the note that names
        it; a call sent again waits a while for its first sending to finish."""
        assert self.door is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (FILED_WITHIN if wait else 0)
        while True:
            captured = self.door.captured_by(event_key)
            if captured is not None:
                return captured
            if loop.time() >= deadline:
                break
            await asyncio.sleep(0.05)
        for path, title, value in await ctx.store.index.field_values("source_event", event_key):
            if value == event_key:
                data = {"saved": {"path": path, "title": title}, "replayed": True}
                return _result(f"Kept already: {path}.", data)
        return None

    async def _held(self, ctx: ToolContext, outcome: Outcome, card: Reply) -> types.CallToolResult:
        held = json.loads(outcome.content)
        approval_id = str(held["approval_id"])
        try:
            platform = await self.send_card(ctx.person.id, card)
        except NoChat as exc:
            # No chat to press Approve in: the terminal decides it (`brainbot approve`).
            text = (
                f"Waiting for approval: {held['summary']}. Nothing changes until it is "
                f"approved: {exc}; or run `{APPROVE} {approval_id}` (or `{REJECT} "
                f"{approval_id}`) where brainbot runs. `{PENDING}` lists what waits."
            )
            return _held_result(text, approval_id, held["summary"], "command line")
        except Exception as exc:
            # Slack or Telegram refused or is down: a card nobody sees must not stay open.
            log.warning("approval card %s not sent: %r", approval_id, exc)
            await self.records.approvals.settle(approval_id, "failed", f"card not sent: {exc}")
            return _error(
                f"{held['summary']} needs your approval, but the card could not be sent "
                f"({exc}). Nothing changed; try again later."
            )
        text = (
            f"Waiting for approval: {held['summary']}. Approve or reject it in {platform.title()}"
            f" (approval id {approval_id}, or `{APPROVE} {approval_id}` where brainbot runs);"
            " nothing changes until then."
        )
        return _held_result(text, approval_id, held["summary"], platform)

    async def decide(self, approval_id: str, approve: bool) -> tuple[bool, str]:
        """Approve or reject a held call from the command line, as its requester's press
        of the card's button would (the same handler): whether this decided it, and
        what it did."""
        approval = await self.records.approvals.get(approval_id)
        if approval is None:
            return False, f"No approval {approval_id!r}; `{PENDING}` lists what waits."
        person = await self._person(approval.user_id)
        if person is None:
            return False, "The person who asked for this change no longer exists."
        ctx = await self._context(person, "command line")
        replies = await self.buttons.press(ctx, "approve" if approve else "reject", approval_id)
        said = "\n".join(reply.text for reply in replies)
        if not said:
            return False, f"Already decided ({approval.status}): {approval.summary}."
        return True, said

    async def _person(self, user_id: int) -> Person | None:
        return next((p for p in await self.records.people.all() if p.id == user_id), None)

    async def _context(self, person: Person, client: str) -> ToolContext:
        """The person's own vault, as a DM would use it (team vaults belong to chats)."""
        now = self.clock()
        vault = await self.vaults.of_person(person.id, person.name, now)
        call_id = secrets.token_hex(6)
        source = {"platform": PLATFORM}
        if client:
            source["client"] = client
        return ToolContext(
            store=await self.vaults.store(vault),
            records=self.records,
            settings=self.settings,
            person=person,
            author=Author(person.name or f"user {person.id}", f"user-{person.id}@brainbot.local"),
            # One conversation per person: a move of what MCP just filed is a
            # correction, as in chat.
            conversation=Conversation(PLATFORM, str(person.id)),
            source=source,
            now=now,
            event_key=f"{PLATFORM}:{call_id}",
            people=self.people,
            vault=vault,
            vaults=self.vaults,
        )


def _held_result(text: str, approval_id: str, summary: str, sent_to: str) -> types.CallToolResult:
    data = {
        "status": "waiting for approval",
        "approval_id": approval_id,
        "summary": summary,
        "sent_to": sent_to,
    }
    return _result(text, data)


def _without_buttons(result: ToolResult) -> str:
    """The result's text for a client that shows no buttons (a capture's are made to
    fit by the capture path, bot.capture)."""
    if not result.buttons:
        return result.text
    labels = ", ".join(button.label for button in result.buttons)
    return f"{result.text} (In chat: {labels}.)"


def _error(message: str) -> types.CallToolResult:
    return _result(message, error=True)


def _result(
    text: str, data: dict[str, Any] | None = None, *, error: bool = False
) -> types.CallToolResult:
    """What a call answers: its text, and the data for a client that reads it."""
    # The SDK is imported by the first call, in the processes that serve MCP: `brainbot
    # approve` decides through these calls and needs none of it (~0.4 CPU-s of imports).
    from mcp import types

    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
    if error:
        return types.CallToolResult(content=content, isError=True)
    return types.CallToolResult(content=content, structuredContent=data)
