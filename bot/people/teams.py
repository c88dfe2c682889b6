"""Team membership follows the platform: a member of a team vault is someone its chat
(BRAINBOT_TEAM_VAULTS) still has.

Writing in the team's chat makes a person a member and confirms them again each
time. A membership not confirmed for BRAINBOT_TEAM_CHECK_HOURS is asked about before
it grants anything (a team hit in a DM, a team note over MCP or `/get`), and the
scheduler's leader asks about every such membership at least that often (`sweep`):
Slack's `conversations.members`, Telegram's `getChatMember`. Someone the chat no
longer has loses the membership (the row goes, and the log says so); they are a
member again as soon as they write there.

When the platform cannot answer (Slack down, a missing scope, the bot removed from
the chat, the platform not configured in this process) nothing is decided: the
membership keeps working, so an outage does not lock a team out of its notes, but
only while its last confirmation is less than TRUST_DAYS old. Past that, access is
refused until the platform answers again; the row stays, so nobody has to rejoin.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol, runtime_checkable

from storage import VaultInfo, Vaults, folder_name
from storage.db import Records

log = logging.getLogger(__name__)

TRUST_DAYS = 7  # how long a membership outlasts a platform that cannot answer
RETRY_AFTER = timedelta(minutes=15)  # a failed check is not repeated sooner
CHECK_TIMEOUT = 10.0  # seconds a person's request may wait for the platform


@runtime_checkable
class ChatMembers(Protocol):
    """A platform that says who is in a chat (adapters.slack and adapters.telegram)."""

    @property
    def platform(self) -> str: ...

    async def members_among(self, chat_id: str, user_ids: Collection[str]) -> set[str]:
        """Which of `user_ids` (the platform's user ids) chat `chat_id` has now;
        raises when the platform cannot say."""
        ...


@dataclass(frozen=True, slots=True)
class Swept:
    """What one sweep found: members confirmed, removed, and left undecided."""

    confirmed: int = 0
    removed: int = 0
    unknown: int = 0


@dataclass
class TeamMembership:
    """Checks team members against their chats (see the module doc). `allows` is the
    vaults' `member_check`; `sweep` is the scheduler's daily job."""

    vaults: Vaults
    records: Records
    chats: Mapping[str, str]  # "platform:chat" -> team vault name (BRAINBOT_TEAM_VAULTS)
    clock: Callable[[], datetime]
    fresh_for: timedelta = timedelta(hours=24)
    trust_for: timedelta = timedelta(days=TRUST_DAYS)
    platforms: Mapping[str, ChatMembers] = field(default_factory=dict)  # by platform name
    _undecided: dict[tuple[int, int], datetime] = field(default_factory=dict)

    def install(self) -> None:
        """Make every team access in this process go through `allows`."""
        self.vaults.member_check = self.allows

    async def allows(self, vault: VaultInfo, user_id: int, checked_at: datetime) -> bool:
        """Whether a recorded member may use the team vault now: confirmed recently, or
        confirmed by the platform now, or (the platform cannot say) within the trust."""
        now = self.clock()
        if now - checked_at < self.fresh_for:
            return True
        verdict: bool | None = None
        if self._undecided.get((vault.id, user_id), now) <= now:
            verdict = (await self.check(vault, {user_id: checked_at}, now)).get(user_id)
        if verdict is None:
            return now - checked_at < self.trust_for
        return verdict

    async def sweep(self) -> Swept:
        """Ask the platforms about every membership not confirmed within `fresh_for`
        (the scheduler's leader runs this; a member who left loses the membership)."""
        now = self.clock()
        stale: dict[int, tuple[VaultInfo, dict[int, datetime]]] = {}
        for vault, user_id, checked_at in await self.vaults.checked_before(now - self.fresh_for):
            if self._undecided.get((vault.id, user_id), now) <= now:
                stale.setdefault(vault.id, (vault, {}))[1][user_id] = checked_at
        verdicts: list[bool | None] = []
        for vault, members in stale.values():
            verdicts += (await self.check(vault, members, now)).values()
        return Swept(verdicts.count(True), verdicts.count(False), verdicts.count(None))

    async def check(
        self, vault: VaultInfo, members: Mapping[int, datetime], now: datetime
    ) -> dict[int, bool | None]:
        """Ask the team's chats about `members` (person -> when last confirmed): True
        (confirmed now), False (removed: no chat of the team has them), None (the
        platform could not say; kept as it is)."""
        chats = [
            key.split(":", 1) for key, name in self.chats.items() if folder_name(name) == vault.name
        ]
        accounts = {user_id: await self._accounts(user_id) for user_id in members}
        verdicts: dict[int, bool | None] = dict.fromkeys(members, False)
        for platform, chat_id in chats:
            asked = {u: ids[platform] for u, ids in accounts.items() if ids.get(platform)}
            if not asked:
                continue
            present = await self._ask(platform, chat_id, {i for ids in asked.values() for i in ids})
            for user_id, ids in asked.items():
                if verdicts[user_id] is True:
                    continue
                if present is None:
                    verdicts[user_id] = None
                elif ids & present:
                    verdicts[user_id] = True
        await self._settle(vault, members, verdicts, now, chats)
        return verdicts

    async def _accounts(self, user_id: int) -> dict[str, set[str]]:
        """The person's user ids on each platform (every linked account)."""
        accounts: dict[str, set[str]] = {}
        for identity in await self.records.people.identities_of(user_id):
            accounts.setdefault(identity.platform, set()).add(identity.platform_user_id)
        return accounts

    async def _ask(self, platform: str, chat_id: str, user_ids: set[str]) -> set[str] | None:
        client = self.platforms.get(platform)
        if client is None:
            log.warning(
                "cannot check the members of %s:%s: %s is not configured here",
                platform,
                chat_id,
                platform,
            )
            return None
        try:
            return await asyncio.wait_for(client.members_among(chat_id, user_ids), CHECK_TIMEOUT)
        except Exception as exc:
            # Not knowing is not "gone": Slack being down must not lock a team out.
            log.warning("cannot check the members of %s:%s: %s", platform, chat_id, exc)
            return None

    async def _settle(
        self,
        vault: VaultInfo,
        members: Mapping[int, datetime],
        verdicts: Mapping[int, bool | None],
        now: datetime,
        chats: list[list[str]],
    ) -> None:
        confirmed = [u for u, verdict in verdicts.items() if verdict]
        await self.vaults.confirm(vault.id, confirmed, now)
        for user_id, verdict in verdicts.items():
            self._undecided.pop((vault.id, user_id), None)
            if verdict is None:
                self._undecided[vault.id, user_id] = now + RETRY_AFTER
                last = members[user_id]
                kept = "kept" if now - last < self.trust_for else "refused until it answers"
                log.warning(
                    "team %s: membership of user %s not confirmed (last %s): %s",
                    vault.name,
                    user_id,
                    last.isoformat(),
                    kept,
                )
            elif not verdict and await self.vaults.leave(vault.id, user_id, members[user_id]):
                where = ", ".join(":".join(c) for c in chats) or "no chat (BRAINBOT_TEAM_VAULTS)"
                log.info(
                    "team %s: user %s is no longer in %s; membership removed",
                    vault.name,
                    user_id,
                    where,
                )
