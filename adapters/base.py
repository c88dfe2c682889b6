"""What the running process needs of a platform's adapter (`Adapter`), and the few
things some adapters can do besides (each a narrow protocol, asked with `isinstance`):
add routes to the HTTP server (`Mountable`), end by themselves (`EndsByItself`: the
console, at the end of its input). Saying who is in a chat is `bot.people.ChatMembers`,
since the team membership that asks it lives there. How an adapter is configured and
built is its platform's contract (adapters.platform)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from bot.events import Conversation, EventHandler, MayUse, Reply

if TYPE_CHECKING:  # a command that serves nothing (`brainbot mcp token`) skips aiohttp
    from aiohttp import web


@dataclass(frozen=True, slots=True)
class SentRef:
    """Enough to edit a message later: the conversation and the platform's message ids."""

    conversation: Conversation
    message_ids: tuple[str, ...]


class Adapter(Protocol):
    """One platform, running. `start` returns once the adapter is connected and serving;
    `send` and `edit` work before it too (a digest sent from the command line)."""

    @property
    def platform(self) -> str:
        """The `platform` of the events it makes and the conversations it serves."""
        ...

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None: ...

    async def send(self, conversation: Conversation, reply: Reply) -> SentRef: ...

    async def edit(self, ref: SentRef, reply: Reply) -> None: ...

    async def stop(self) -> None: ...


@runtime_checkable
class Mountable(Protocol):
    """An adapter that serves routes on brainbot's HTTP server (Slack's HTTP mode,
    Telegram's webhook)."""

    def mount(self, app: web.Application) -> None: ...


@runtime_checkable
class EndsByItself(Protocol):
    """An adapter that can finish on its own (the console, at the end of input)."""

    async def wait_closed(self) -> None:
        """Return once it has finished."""
        ...

    def end(self) -> None:
        """Finish now, as at the end of input (Ctrl-C at a terminal); `stop` still follows."""
        ...
