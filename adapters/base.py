"""The protocol every platform adapter implements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.events import Conversation, Event, Reply, Sender

EventHandler = Callable[[Event], Awaitable[Sequence[Reply]]]
# Asked before anything is downloaded for a sender: a stranger's files are never fetched.
MayUse = Callable[[Sender], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class SentRef:
    """Enough to edit a message later: the conversation and the platform's message ids."""

    conversation: Conversation
    message_ids: tuple[str, ...]


class Adapter(Protocol):
    """One platform. `start` returns once the adapter is connected and serving."""

    platform: str

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None: ...

    async def send(self, conversation: Conversation, reply: Reply) -> SentRef: ...

    async def edit(self, ref: SentRef, reply: Reply) -> None: ...

    async def stop(self) -> None: ...
