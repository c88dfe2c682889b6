"""The platforms, as the process uses them once they are built: sending through the
one that serves a conversation, and asking the ones that can who is in a chat."""

from __future__ import annotations

from collections.abc import Iterable

from adapters.base import Adapter
from bot.events import Conversation, Deliver, NoRoute, Reply
from bot.people import ChatMembers


def deliver_via(adapters: Iterable[Adapter]) -> Deliver:
    """A `deliver` callable that sends through the adapter of the conversation's
    platform (NoRoute when there is none)."""
    by_platform = {adapter.platform: adapter for adapter in adapters}

    async def deliver(conversation: Conversation, reply: Reply) -> object:
        adapter = by_platform.get(conversation.platform)
        if adapter is None:
            raise NoRoute(conversation.platform)
        return await adapter.send(conversation, reply)

    return deliver


def chat_members(adapters: Iterable[Adapter]) -> dict[str, ChatMembers]:
    """The adapters that can say who is in a chat (for team vaults), by platform."""
    return {a.platform: a for a in adapters if isinstance(a, ChatMembers)}
