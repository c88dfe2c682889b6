"""Who may talk to the bot, and which person a platform identity belongs to."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.events import Conversation, Sender
from storage.entry import Author
from storage.records import Person, Records

LINK_CODE_TTL = timedelta(minutes=10)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

SettingsListener = Callable[[Person], Awaitable[None]]


class People:
    """Allow-list checks, user records (cached per identity), linking and settings."""

    def __init__(self, records: Records, allowed: tuple[str, ...]) -> None:
        self.records = records
        self.allowed = frozenset(allowed)
        self._cache: dict[tuple[str, str], Person] = {}
        self.listeners: list[SettingsListener] = []

    def is_allowed(self, sender: Sender) -> bool:
        # Whoever has the terminal has the vault's files already.
        if sender.platform == "console" or not self.allowed:
            return True
        return sender.key in self.allowed or f"{sender.platform}:*" in self.allowed

    async def resolve(self, sender: Sender, conversation: Conversation, now: datetime) -> Person:
        """The person behind `sender`, created on first contact."""
        key = (sender.platform, sender.id)
        person = self._cache.get(key)
        if person is None:
            person = await self.records.person_for(sender.platform, sender.id)
        if person is None:
            home = conversation.chat_id if conversation.thread_id is None else None
            person = await self.records.add_person(
                platform=sender.platform,
                platform_user_id=sender.id,
                name=sender.name or sender.id,
                timezone=sender.timezone,
                home_chat_id=home,
                now=now,
            )
        self._cache[key] = person
        return person

    @staticmethod
    def author(person: Person, sender: Sender) -> Author:
        return Author(sender.name or person.name or sender.key, f"user-{person.id}@brainbot.local")

    async def start_link(self, person: Person, now: datetime) -> str:
        code = await self.records.new_link_code(person.id, now + LINK_CODE_TTL)
        return (
            f"Your link code is {code}. Within 10 minutes, send `/link {code}` to me from your "
            "other account (Slack or Telegram) and both will reach the same brain."
        )

    async def finish_link(self, sender: Sender, code: str, now: datetime) -> str:
        person = await self.records.redeem_link_code(
            code.strip(),
            platform=sender.platform,
            platform_user_id=sender.id,
            name=sender.name,
            now=now,
        )
        if person is None:
            return "That code is unknown or has expired. Ask for a new one with /link."
        self._cache[(sender.platform, sender.id)] = person
        return f"Linked: this {sender.platform} account now reaches the brain of {person.name}."

    async def change_settings(self, person: Person, words: list[str]) -> str:
        """`/settings`, `/settings digest 07:30|on|off`, `/settings timezone Europe/Berlin`,
        `/settings weekly sunday`."""
        if not words:
            return describe_settings(person)
        what, rest = words[0].lower(), " ".join(words[1:]).strip()
        if what == "digest" and rest.lower() in ("on", "off"):
            updated = await self.records.update_person(
                person.id, digest_enabled=rest.lower() == "on"
            )
        elif what == "digest" and re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", rest):
            hours, minutes = rest.split(":")
            updated = await self.records.update_person(
                person.id, digest_time=f"{int(hours):02d}:{minutes}", digest_enabled=True
            )
        elif what in ("timezone", "tz"):
            try:
                ZoneInfo(rest)
            except (ZoneInfoNotFoundError, ValueError):
                return f"I don't know the time zone {rest!r}. Use a name like Europe/Berlin."
            updated = await self.records.update_person(person.id, timezone=rest)
        elif what == "weekly" and rest.lower() in WEEKDAYS:
            updated = await self.records.update_person(
                person.id, weekly_day=WEEKDAYS.index(rest.lower())
            )
        else:
            return (
                "Try /settings digest 07:30, /settings digest off, "
                "/settings timezone Europe/Berlin or /settings weekly sunday."
            )
        for key, cached in list(self._cache.items()):
            if cached.id == updated.id:
                self._cache[key] = updated
        for listener in self.listeners:
            await listener(updated)
        return "Saved. " + describe_settings(updated)


def describe_settings(person: Person, default_time: str = "08:00") -> str:
    digest = (
        f"daily digest at {person.digest_time or default_time}"
        if person.digest_enabled
        else "digest off"
    )
    return (
        f"Your settings: {digest}, time zone {person.timezone or 'the server default'}, "
        f"weekly review on {WEEKDAYS[person.weekly_day].title()}."
    )
