"""The protocol every platform adapter implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.events import Conversation, EventHandler, MayUse, Reply


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
