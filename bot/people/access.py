"""Who may talk to the bot: the allow-list, the owner's claim of a fresh install, and
a second account linked to a person with a one-time code."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta

from bot.events import Sender
from storage.db import Person, Records

log = logging.getLogger(__name__)

LINK_CODE_TTL = timedelta(minutes=10)
WRONG_CODES_ALLOWED = 5  # claim or link codes, per sender, before a lockout
LOCKOUT = timedelta(minutes=15)
LINK = re.compile(r"^/link(?:@\S+)?\s+(?P<code>[A-Za-z0-9][A-Za-z0-9 -]{3,40})$", re.I)
CLAIM = re.compile(r"^/?(?:start|claim)(?:@\S+)?\s+(?P<code>[A-Za-z0-9][A-Za-z0-9 -]{3,40})$", re.I)


class Access:
    """Allow-list checks (the setting, then who a claim or a link admitted), claim codes,
    link codes, and the lockout after wrong codes. `platforms` says where a person's
    other accounts may be, as they read it ("Slack or Telegram": the platforms the
    process registers)."""

    def __init__(self, records: Records, allowed: tuple[str, ...], *, platforms: str) -> None:
        self.records = records
        self.platforms = platforms
        self.allowed = frozenset(allowed)
        self._admitted: set[str] = set()  # nobody is un-admitted: a cache that stays true
        self._wrong_codes: dict[str, tuple[int, datetime]] = {}

    def in_setting(self, sender: Sender) -> bool:
        """Whether BRAINBOT_ALLOWED_USERS names this sender (`platform:id`, `platform:*`
        for the bot's own workspace, `slack:TEAM:*` for a whole other workspace)."""
        if sender.key in self.allowed:
            return True
        if sender.team and f"{sender.platform}:{sender.team}:*" in self.allowed:
            return True
        return not sender.foreign and f"{sender.platform}:*" in self.allowed

    @staticmethod
    def at_the_terminal(sender: Sender) -> bool:
        """The console's sender: whoever has the terminal has the files (the owner)."""
        return sender.platform == "console"

    def known_allowed(self, sender: Sender) -> bool:
        """Allowed without asking storage: the console, who the setting names, or who
        this process saw admitted."""
        return (
            self.at_the_terminal(sender) or self.in_setting(sender) or sender.key in self._admitted
        )

    def vouch(self, sender: Sender) -> None:
        """Let `sender` in for this process: something else proved who they are (an
        API token names its person)."""
        self._admitted.add(sender.key)

    async def is_allowed(self, sender: Sender) -> bool:
        """Who `known_allowed` names, or who was admitted by a claim or a link."""
        if self.known_allowed(sender):
            return True
        if await self.records.admission.is_admitted(sender.key):
            self._admitted.add(sender.key)
            return True
        return False

    async def answer_code(self, sender: Sender, text: str, now: datetime) -> str | None:
        """`/start CODE`, `claim CODE` or `/link CODE` from a stranger: all a closed
        install listens to from them (see storage.db.admission). None for anything else,
        and for a claim the sender may not try (yet)."""
        text = text.strip()
        link = LINK.match(text)
        if link is not None:
            # Another account of an admitted person joins it with the code it was given.
            return await self.finish_link(sender, link["code"], now)
        claim = CLAIM.match(text)
        return None if claim is None else await self.claim(sender, claim["code"], now)

    async def claim(self, sender: Sender, code: str, now: datetime) -> str | None:
        """`/start CODE` from a stranger: the owner's welcome when CODE is this install's
        claim code, a refusal when it is not, None when the sender may not try (yet)."""
        if self.locked_out(sender, now):
            return None
        if await self.records.admission.claim(code, sender.key, now):
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

    async def start_link(self, person: Person, now: datetime) -> str:
        code = await self.records.people.new_link_code(person.id, now + LINK_CODE_TTL)
        return (
            f"Your link code is {code}. Within 10 minutes, send `/link {code}` to me from your "
            f"other account ({self.platforms}) and both will reach the same brain."
        )

    async def finish_link(self, sender: Sender, code: str, now: datetime) -> str:
        """`/link CODE` from the other account: it joins the person who asked for CODE
        (and may use the bot from then on). Wrong codes count towards a lockout."""
        if self.locked_out(sender, now):
            return "Too many wrong codes. Wait a quarter of an hour, then ask for a new one."
        person = await self.records.people.redeem_link_code(
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
        if not self.at_the_terminal(sender) and not self.in_setting(sender):
            await self.records.admission.admit(sender.key, "link", now)
            self._admitted.add(sender.key)
        return f"Linked: this {sender.platform} account now reaches the brain of {person.name}."
