"""A `deliver` callable that keeps what it was given, and people to send to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.runtime import Runtime
from bot.events import Conversation, Reply
from storage.db.people import Person


@dataclass
class Outbox:
    """Records (when, conversation, reply) for every digest handed to it."""

    clock: Callable[[], datetime]
    sent: list[tuple[datetime, Conversation, Reply]] = field(default_factory=list)

    async def __call__(self, conversation: Conversation, reply: Reply) -> None:
        self.sent.append((self.clock(), conversation, reply))


async def add_ada(
    brain: Runtime,
    *,
    timezone: str | None = "Europe/Berlin",
    digest_time: str | None = "08:00",
    platform: str = "test",
    user_id: str = "U1",
    chat_id: str = "chat-1",
    since: timedelta = timedelta(days=30),
) -> Person:
    """Ada, who talks to the bot in a direct chat, with her digest settings; she has
    used it for `since` (a digest due before she came is not hers)."""
    person = await brain.records.people.add(
        platform=platform,
        platform_user_id=user_id,
        name="Ada",
        timezone=timezone,
        home_chat_id=chat_id,
        now=brain.engine.clock() - since,
    )
    return await brain.records.people.update(person.id, digest_time=digest_time)
