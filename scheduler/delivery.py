"""Sending one digest: claim it in the digest log, compose it, send it to the
person's home conversation, keep it in the vault.

The claim comes first and cannot succeed twice, so whatever happens later (a crash
mid-send, a second process, a late timer) the digest goes out at most once. A send
that fails is tried again with backoff while it is within the grace period
(scheduler.retry), then recorded as failed and reported; `brainbot digest --send`
sends one by hand. Platforms are reached through a `deliver(conversation, reply)`
callable (bot.events.Deliver, made by app.platforms), so this module knows no adapter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot import metrics
from bot.config import Settings
from bot.digest import Digest, compose_digest, present, record_shown, with_summary
from bot.events import Conversation, Deliver, NoRoute
from bot.llm import LLM
from scheduler.retry import next_attempt
from scheduler.schedule import Slot
from storage import BOT_AUTHOR, StorageError, Store, Vaults
from storage.db import DigestKey, DigestMessages, Person, Records, Send, SendLedger
from storage.text.dates import local_zone
from storage.vault import DIGESTS_DIR

log = logging.getLogger(__name__)


async def home_conversations(records: Records, user_id: int) -> list[Conversation]:
    """Where a person gets proactive messages: the direct chat of each linked
    account, the account they started with first."""
    identities = sorted(await records.people.identities_of(user_id), key=lambda i: i.created_at)
    return [Conversation(i.platform, i.home_chat_id) for i in identities if i.home_chat_id]


def note_path(day: date) -> str:
    return f"{DIGESTS_DIR}/{day.isoformat()}.md"


@dataclass(frozen=True, slots=True)
class Sent:
    """What came of one attempt: `sent`, `already` (claimed before), `retrying`
    (failed, tried again later), `failed` (for good), `skipped` (missed too long ago)."""

    status: str
    detail: str = ""
    conversation: Conversation | None = None


class DigestDelivery:
    """Compose and send digests for people, each at most once per local date and kind."""

    def __init__(
        self,
        *,
        vaults: Vaults,
        records: Records,
        ledger: SendLedger,
        messages: DigestMessages,
        settings: Settings,
        llm: LLM | None,
        deliver: Deliver,
        clock: Callable[[], datetime],
    ) -> None:
        self.vaults = vaults
        self.records = records
        self.ledger = ledger
        self.messages = messages
        self.settings = settings
        self.llm = llm
        self.deliver = deliver
        self.clock = clock
        self.grace = timedelta(seconds=settings.digest_grace_seconds)

    async def compose(self, person: Person, day: date, kind: str) -> Digest:
        """The person's digest for local date `day`, with the model's opening if any."""
        zone = local_zone(person.timezone, self.settings.timezone)
        store = await self.store(person)
        digest = await compose_digest(store, day=day, kind=kind, zone=zone, now=self.clock())
        return await with_summary(self.llm, digest)

    async def send(self, person: Person, slot: Slot) -> Sent:
        """Claim, compose, send and keep the digest of `slot`; never raises for a
        failed send (it is logged, recorded, and tried again while in its grace)."""
        key = DigestKey(person.id, slot.local_date, slot.kind)
        if not await self.ledger.claim(key, due_at=slot.due_at, now=self.clock()):
            return Sent("already")
        return await self._attempt(person, key, slot.due_at, attempts=1)

    async def retry(self, person: Person, entry: Send) -> Sent:
        """One more attempt at a digest whose send failed (see scheduler.retry);
        `already` when another caller took this attempt."""
        key = entry.digest
        taken = await self.ledger.reclaim(key, self.clock())
        if taken is None:
            return Sent("already")
        return await self._attempt(person, key, taken.due_at, attempts=taken.attempts)

    async def _attempt(
        self, person: Person, key: DigestKey, due_at: datetime, *, attempts: int
    ) -> Sent:
        try:
            digest = await self.compose(person, key.local_date, key.kind)
            sent, message_id = await self.send_now(person, digest)
        except Exception as exc:
            log.exception("%s digest for user %s on %s failed", key.kind, person.id, key.local_date)
            return await self._failed(key, due_at, attempts, str(exc) or type(exc).__name__)
        if sent.status != "sent":
            return await self._failed(key, due_at, attempts, sent.detail)
        conversation = sent.conversation
        await self.ledger.finish(
            key,
            status="sent",
            now=self.clock(),
            platform=conversation.platform if conversation else None,
            chat_id=conversation.chat_id if conversation else None,
            message_id=message_id,
        )
        metrics.digest_delivered("sent")
        await self.keep(person, digest)
        log.info("%s digest sent to user %s for %s", key.kind, person.id, key.local_date)
        return sent

    async def _failed(self, key: DigestKey, due_at: datetime, attempts: int, detail: str) -> Sent:
        """Record a failed attempt: to be tried again while in the grace period, else
        failed for good and reported (an error in the log, `brainbot doctor`)."""
        now = self.clock()
        again = next_attempt(attempts, due_at=due_at, grace=self.grace, now=now)
        if again is not None:
            await self.ledger.finish(
                key, status="retrying", now=now, detail=detail, next_attempt_at=again
            )
            metrics.digest_delivered("retrying")
            log.warning(
                "%s digest for user %s on %s not sent (attempt %d: %s); trying again at %s",
                key.kind,
                key.user_id,
                key.local_date,
                attempts,
                detail,
                again.isoformat(),
            )
            return Sent("retrying", detail)
        await self.ledger.finish(key, status="failed", now=now, detail=detail)
        metrics.digest_delivered("failed")
        log.error(
            "%s digest for user %s on %s failed for good after %d attempt(s): %s",
            key.kind,
            key.user_id,
            key.local_date,
            attempts,
            detail,
        )
        return Sent("failed", detail)

    async def send_now(self, person: Person, digest: Digest) -> tuple[Sent, str | None]:
        """Send a composed digest to the person's first reachable home conversation
        (no digest-log claim: for `brainbot digest --send` and for `send`)."""
        homes = await home_conversations(self.records, person.id)
        if not homes:
            return Sent("failed", "no direct conversation to send to yet"), None
        store = await self.store(person)
        reply, message_id = await present(
            digest,
            user_id=person.id,
            records=self.records,
            digests=self.messages,
            now=self.clock(),
            vault_id=store.vault_id,
        )
        unreachable: list[str] = []
        for conversation in homes:
            try:
                await self.deliver(conversation, reply)
            except NoRoute as exc:
                unreachable.append(exc.platform)
                continue
            await record_shown(self.records, store, digest.brought_back, digest.day)
            return Sent("sent", conversation=conversation), message_id
        reason = f"cannot reach {', '.join(unreachable)} from here (not configured or not running)"
        return Sent("failed", reason), message_id

    async def store(self, person: Person) -> Store:
        """The person's own vault: their digest reads it and is kept in it."""
        return await self.vaults.store(await self.vaults.of_person(person.id, person.name))

    async def keep(self, person: Person, digest: Digest) -> None:
        """Save the digest as `digests/YYYY-MM-DD.md` in the person's vault (one commit);
        a failure here is logged, since the person has the digest already."""
        try:
            store = await self.store(person)
            await store.write_note(
                note_path(digest.day),
                digest.markdown(),
                operation="digest",
                author=BOT_AUTHOR,
                message=digest.title,
            )
        except StorageError as exc:
            log.warning("could not keep the digest of %s in the vault: %s", digest.day, exc)
