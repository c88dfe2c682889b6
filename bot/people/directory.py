"""Who may talk to the bot, and which person a platform identity belongs to."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.events import Conversation, Sender
from storage.db.admission import Admission
from storage.db.people import Person
from storage.db.records import Records
from storage.entry import Author

log = logging.getLogger(__name__)

LINK_CODE_TTL = timedelta(minutes=10)
WRONG_CODES_ALLOWED = 5  # claim or link codes, per sender, before a lockout
LOCKOUT = timedelta(minutes=15)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

SettingsListener = Callable[[Person], Awaitable[None]]


class People:
    """Allow-list checks, user records (cached per identity), linking and settings."""

    def __init__(self, records: Records, allowed: tuple[str, ...]) -> None:
        self.records = records
        self.admission = Admission(records.engine)
        self.allowed = frozenset(allowed)
        self._cache: dict[tuple[str, str], Person] = {}
        self._admitted: set[str] = set()
        self._wrong_codes: dict[str, tuple[int, datetime]] = {}
        self.listeners: list[SettingsListener] = []

    def in_setting(self, sender: Sender) -> bool:
        """Whether BRAINBOT_ALLOWED_USERS names this sender (`platform:id`, `platform:*`
        for the bot's own workspace, `slack:TEAM:*` for a whole other workspace)."""
        if sender.key in self.allowed:
            return True
        if sender.team and f"{sender.platform}:{sender.team}:*" in self.allowed:
            return True
        return not sender.foreign and f"{sender.platform}:*" in self.allowed

    async def is_allowed(self, sender: Sender) -> bool:
        """The console always (whoever has the terminal has the files); on a platform,
        who the setting names or who was admitted by a claim or a link."""
        if sender.platform == "console" or self.in_setting(sender):
            return True
        if sender.key in self._admitted:
            return True
        if await self.admission.is_admitted(sender.key):
            self._admitted.add(sender.key)
            return True
        return False

    async def claim(self, sender: Sender, code: str, now: datetime) -> str | None:
        """`/start CODE` from a stranger: the owner's welcome when CODE is this install's
        claim code, a refusal when it is not, None when the sender may not try (yet)."""
        if self.locked_out(sender, now):
            return None
        if await self.admission.claim(code, sender.key, now):
            self._admitted.add(sender.key)
            self._wrong_codes.pop(sender.key, None)
            log.warning("brainbot was claimed by %s, its owner", sender.key)
            return (
                "Welcome! This brain is yours now: you are its owner. Tell me a thought to "
                "file it, or send /help."
            )
        self.wrong_code(sender, now)
        return "That code is not valid."

    def locked_out(self, sender: Sender, now: datetime) -> bool:
        """After WRONG_CODES_ALLOWED wrong codes a sender may not try for a while."""
        count, since = self._wrong_codes.get(sender.key, (0, now))
        if count >= WRONG_CODES_ALLOWED and now - since < LOCKOUT:
            return True
        if now - since >= LOCKOUT:
            self._wrong_codes.pop(sender.key, None)
        return False

    def wrong_code(self, sender: Sender, now: datetime) -> None:
        count, since = self._wrong_codes.get(sender.key, (0, now))
        self._wrong_codes[sender.key] = (count + 1, since)

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
        """`/link CODE` from the other account: it joins the person who asked for CODE
        (and may use the bot from then on). Wrong codes count towards a lockout."""
        if self.locked_out(sender, now):
            return "Too many wrong codes. Wait a quarter of an hour, then ask for a new one."
        person = await self.records.redeem_link_code(
            code.strip(),
            platform=sender.platform,
            platform_user_id=sender.id,
            name=sender.name,
            now=now,
        )
        if person is None:
            self.wrong_code(sender, now)
            return "That code is unknown or has expired. Ask for a new one with /link."
        self._wrong_codes.pop(sender.key, None)
        if sender.platform != "console" and not self.in_setting(sender):
            await self.admission.admit(sender.key, "link", now)
            self._admitted.add(sender.key)
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
