"""Which person a platform identity is (made on first contact), how their commits
are signed, and changing their settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, time
from zoneinfo import ZoneInfo

from bot.events import Conversation, Sender
from bot.people.settings import SettingsChange, describe_settings
from storage import Author
from storage.db import Person, Records

SettingsListener = Callable[[Person], Awaitable[None]]


class People:
    """Persons as the records keep them; nothing is cached, so every process sees a
    change another one made."""

    def __init__(self, records: Records, *, default_time: time, default_zone: ZoneInfo) -> None:
        self.records = records
        self.default_time = default_time
        self.default_zone = default_zone
        self.listeners: list[SettingsListener] = []  # told of every settings change

    async def resolve(self, sender: Sender, conversation: Conversation, now: datetime) -> Person:
        """The person behind `sender`, created on first contact."""
        person = await self.records.people.person_for(sender.platform, sender.id)
        if person is not None:
            return person
        home = conversation.chat_id if conversation.thread_id is None else None
        return await self.records.people.add(
            platform=sender.platform,
            platform_user_id=sender.id,
            name=sender.name or sender.id,
            timezone=sender.timezone,
            home_chat_id=home,
            now=now,
        )

    @staticmethod
    def author(person: Person, sender: Sender) -> Author:
        return Author(sender.name or person.name or sender.key, f"user-{person.id}@brainbot.local")

    def describe(self, person: Person) -> str:
        """The person's settings as in effect (the install's defaults filled in)."""
        return describe_settings(
            person, default_time=self.default_time, default_zone=self.default_zone
        )

    async def update_settings(self, person: Person, change: SettingsChange) -> Person:
        """Write `change` (one statement) and tell the listeners (the digest schedule)."""
        columns = change.columns(person)
        if not columns:  # nothing to change ("weekly on" when it is on)
            return person
        updated = await self.records.people.update(person.id, **columns)
        for listener in self.listeners:
            await listener(updated)
        return updated
