"""Sending reminders: a note's `remind` time comes, its person gets a message with
Done / Snooze buttons, once.

- The notes come from the index (storage.index.reminder_queries); a time written
  without an offset is in the note's `timezone`, else the person's local time (a
  team vault's: the deployment's).
- Each (vault, note id, instant) is claimed in the reminder log before it is sent,
  so a restart, a second process or a late poll never sends it twice. Only the
  scheduler's leader calls `run_due`, at every poll.
- After downtime, a reminder missed less than BRAINBOT_REMINDER_GRACE ago is sent
  (saying it is late); an older one is logged as skipped. A failed send is tried
  again with backoff inside the grace period, then reported (scheduler.retry).
- A repeating note (`repeat: every monday`) gets its next `remind` written into the
  note as soon as this one is handled, so it keeps repeating with or without a press.
- Where: a person's reminders go to their direct chat, on the platform the note came
  from when they have several; a team vault's go to the team's chat.
- One bad note stops no one: a `remind` that is no time (or outside 1970..9999), a
  repeat that cannot be followed, a send or a write that raises, is recorded as
  skipped (scheduler.skips: logged with the note's path, counted, listed by
  `brainbot doctor`) and the poll goes on with the next note and the next vault.
  The row is cleared once that reminder works again or is gone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot import metrics
from bot.config import Settings
from bot.events import Conversation, Deliver, NoRoute
from bot.reminders import reminder_message
from scheduler.delivery import home_conversations
from scheduler.retry import next_attempt
from scheduler.skips import PollSkips
from storage import BOT_AUTHOR, StorageError, VaultInfo, Vaults
from storage.db import Person, Records, ReminderKey, SendLedger, SkippedItems
from storage.index import ReminderNote, reminder_notes
from storage.text.dates import local_zone, next_occurrence, read_when
from storage.vault import CLOSED_STATUSES

log = logging.getLogger(__name__)

# Instants further back than this (and than the grace period) are not looked at:
# a note imported with a `remind` from last year needs no log row.
LOOKBACK = timedelta(days=2)
WHERE = "reminders"  # where skips are recorded (storage.db.skipped)
EVERY_REMINDER = "(every reminder)"  # the path a failure of a whole vault is recorded under


@dataclass(frozen=True, slots=True)
class Recipient:
    """Who gets a vault's reminders, where, and in which zone their times are."""

    user_id: int  # the person (a team: a member) whose buttons these are
    zone: ZoneInfo
    conversations: tuple[Conversation, ...]  # tried in this order


@dataclass(frozen=True, slots=True)
class Due:
    note: ReminderNote
    at: datetime


class Reminders:
    """Decide which reminders are due and send them (see the module doc)."""

    def __init__(
        self,
        *,
        vaults: Vaults,
        records: Records,
        ledger: SendLedger,
        settings: Settings,
        deliver: Deliver,
        clock: Callable[[], datetime],
        skipped: SkippedItems,
    ) -> None:
        self.vaults = vaults
        self.skipped = skipped
        self.records = records
        self.ledger = ledger
        self.settings = settings
        self.deliver = deliver
        self.clock = clock
        self.grace = timedelta(seconds=settings.reminder_grace_seconds)

    @property
    def default_time(self) -> time:
        return self.settings.reminder_time

    async def run_due(self, now: datetime) -> list[tuple[ReminderKey, str]]:
        """Send every reminder due at or before `now` (and not older than the grace
        period) that the log has not seen; make due retries; move repeating notes on.
        A note, or a vault, that fails is recorded as skipped; the rest goes on."""
        notes = await reminder_notes(self.vaults.database.engine, closed=CLOSED_STATUSES)
        by_vault: dict[int, list[ReminderNote]] = {}
        for note in notes:
            by_vault.setdefault(note.vault_id, []).append(note)
        people = {p.id: p for p in await self.records.people.all()}
        skips = await PollSkips.load(self.skipped, WHERE, now)
        outcomes: list[tuple[ReminderKey, str]] = []
        failed_vaults: set[int] = set()
        for vault_id, group in by_vault.items():
            try:
                zone = await self.zone(vault_id, people)
                if zone is not None:
                    outcomes += await self._vault_due(vault_id, group, zone, people, now, skips)
            except Exception as exc:
                failed_vaults.add(vault_id)
                await _failed(skips, vault_id, EVERY_REMINDER, exc)
        outcomes += await self._retries(now, people, skips)
        # A note of a vault that failed as a whole was not looked at: its row stays.
        await skips.settle(lambda key: key[0] not in failed_vaults)
        return outcomes

    def instant(self, value: Any, zone: ZoneInfo, now: datetime) -> datetime | None:
        """A `remind` or `snooze` value as an instant (local times are in `zone`);
        None when there is none; ValueError (OutOfRange among them) when it is written
        but is no time brainbot keeps."""
        if value is None or value == "":
            return None
        moment = read_when(value, now=now, zone=zone, default_time=self.default_time)
        if moment is None:
            raise ValueError(f"{value!s} is not a date and time")
        return moment

    async def _vault_due(
        self,
        vault_id: int,
        notes: Sequence[ReminderNote],
        zone: ZoneInfo,
        people: dict[int, Person],
        now: datetime,
        skips: PollSkips,
    ) -> list[tuple[ReminderKey, str]]:
        due: list[Due] = []
        repeating: list[tuple[ReminderNote, datetime]] = []
        for note in notes:
            try:
                remind = self.instant(note.remind, note.zone or zone, now)
                snooze = self.instant(note.snooze, note.zone or zone, now)
            except Exception as exc:  # written by hand: left alone, and said so
                await _failed(skips, vault_id, note.path, exc, what="not sent")
                continue
            for at in (remind, snooze):
                if at is not None and now - max(self.grace, LOOKBACK) < at <= now:
                    due.append(Due(note, at))
            if note.repeat and remind is not None and remind <= now:
                repeating.append((note, remind))
        handled = await self.ledger.handled(vault_id, [d.note.note_id for d in due])
        pending = [d for d in due if (d.note.note_id, d.at) not in handled]
        outcomes: list[tuple[ReminderKey, str]] = []
        # Where to send is looked up only when something is to be sent, not at every poll.
        recipient = await self.recipient(vault_id, people) if pending else None
        if recipient is not None:
            for item in sorted(pending, key=lambda d: d.at):
                key = ReminderKey(vault_id, item.note.note_id, item.at)
                try:
                    outcomes.append((key, await self._first(key, item.note, recipient, now)))
                except Exception as exc:
                    await _failed(skips, vault_id, item.note.path, exc)
        for note, remind in repeating:
            try:
                await self._repeat(vault_id, note, remind, note.zone or zone, now)
            except Exception as exc:
                await _failed(skips, vault_id, note.path, exc, what="it does not repeat")
        return outcomes

    async def _first(
        self, key: ReminderKey, note: ReminderNote, recipient: Recipient, now: datetime
    ) -> str:
        late = now - key.remind_at
        if late > self.grace:
            if await self.ledger.claim(
                key,
                user_id=recipient.user_id,
                path=note.path,
                title=note.title,
                now=now,
                status="skipped",
                detail=f"missed by {late}, more than the grace period of {self.grace}",
            ):
                log.warning(
                    "reminder %s (%s) skipped: missed by %s", note.path, key.remind_at, late
                )
                return "skipped"
            return "already"
        if not await self.ledger.claim(
            key, user_id=recipient.user_id, path=note.path, title=note.title, now=now
        ):
            return "already"
        where = preferred(recipient.conversations, note.source)
        return await self._attempt(key, note.path, note.title, recipient, where, attempts=1)

    async def _retries(
        self, now: datetime, people: dict[int, Person], skips: PollSkips
    ) -> list[tuple[ReminderKey, str]]:
        outcomes: list[tuple[ReminderKey, str]] = []
        for entry in await self.ledger.retries_due("reminder", now):
            key = entry.reminder
            try:
                recipient = await self.recipient(key.vault_id, people)
                taken = await self.ledger.reclaim(key, now)
                if recipient is None or taken is None:
                    continue
                outcome = await self._attempt(
                    key,
                    taken.path or "",
                    taken.title or "",
                    recipient,
                    recipient.conversations,
                    attempts=taken.attempts,
                )
            except Exception as exc:
                await _failed(skips, key.vault_id, entry.path or key.note_id, exc)
                continue
            outcomes.append((key, outcome))
        return outcomes

    async def _attempt(
        self,
        key: ReminderKey,
        path: str,
        title: str,
        recipient: Recipient,
        where: Sequence[Conversation],
        *,
        attempts: int,
    ) -> str:
        now = self.clock()
        detail = ""
        try:
            reply = await reminder_message(
                records=self.records,
                user_id=recipient.user_id,
                vault_id=key.vault_id,
                path=path,
                title=title,
                at=key.remind_at,
                zone=recipient.zone,
                now=now,
            )
            unreachable: list[str] = []
            for conversation in where:
                try:
                    await self.deliver(conversation, reply)
                except NoRoute as exc:
                    unreachable.append(exc.platform)
                    continue
                await self.ledger.finish(
                    key,
                    status="sent",
                    now=self.clock(),
                    platform=conversation.platform,
                    chat_id=conversation.chat_id,
                )
                metrics.reminder_sent("sent")
                log.info("reminder %s (%s) sent", path, key.remind_at.isoformat())
                return "sent"
            detail = (
                f"cannot reach {', '.join(unreachable)} from here"
                if unreachable
                else "no chat to send it to yet"
            )
        except Exception as exc:
            log.exception("reminder %s (%s) failed", path, key.remind_at.isoformat())
            detail = str(exc) or type(exc).__name__
        again = next_attempt(attempts, due_at=key.remind_at, grace=self.grace, now=self.clock())
        if again is not None:
            await self.ledger.finish(
                key, status="retrying", now=self.clock(), detail=detail, next_attempt_at=again
            )
            metrics.reminder_sent("retrying")
            log.warning(
                "reminder %s not sent (attempt %d: %s); trying again at %s",
                path,
                attempts,
                detail,
                again.isoformat(),
            )
            return "retrying"
        await self.ledger.finish(key, status="failed", now=self.clock(), detail=detail)
        metrics.reminder_sent("failed")
        log.error(
            "reminder %s (%s) failed for good after %d attempt(s): %s",
            path,
            key.remind_at.isoformat(),
            attempts,
            detail,
        )
        return "failed"

    async def _repeat(
        self, vault_id: int, note: ReminderNote, remind: datetime, zone: ZoneInfo, now: datetime
    ) -> None:
        """Write a repeating note's next `remind` (the same local time, the rule's next
        day); ValueError (OutOfRange among them) or StorageError when it cannot."""
        assert note.repeat is not None
        following = next_occurrence(note.repeat, now, remind.astimezone(zone))
        if following is None:
            raise ValueError(f"no next time for the repeat {note.repeat!r}")
        store = await self.vaults.store(vault_id)
        await store.update(
            note.path,
            fields={"remind": following.astimezone(zone)},
            author=BOT_AUTHOR,
            source={"via": "reminder-repeat"},
        )

    # --- who and where ----------------------------------------------------------------

    async def zone(self, vault_id: int, people: dict[int, Person]) -> ZoneInfo | None:
        """The zone a vault's local reminder times are in: its person's (a team's: the
        deployment's); None for a vault nobody owns yet."""
        vault = await self.vaults.get(vault_id)
        if vault is None:
            return None
        if vault.is_team:
            return self.settings.timezone
        person = people.get(vault.user_id) if vault.user_id is not None else None
        return None if person is None else local_zone(person.timezone, self.settings.timezone)

    async def recipient(self, vault_id: int, people: dict[int, Person]) -> Recipient | None:
        vault = await self.vaults.get(vault_id)
        if vault is None:
            return None
        if vault.is_team:
            return await self._team(vault)
        person = people.get(vault.user_id) if vault.user_id is not None else None
        if person is None:
            return None
        homes = await home_conversations(self.records, person.id)
        return Recipient(
            person.id,
            local_zone(person.timezone, self.settings.timezone),
            tuple(homes),
        )

    async def _team(self, vault: VaultInfo) -> Recipient | None:
        chats = [
            Conversation(*where.split(":", 1))
            for where, name in self.settings.team_vaults.items()
            if name == vault.name and ":" in where
        ]
        member = await self.vaults.first_member(vault.id)
        if member is None or not chats:
            return None
        return Recipient(member, self.settings.timezone, tuple(chats))


async def _failed(
    skips: PollSkips, vault_id: int, path: str, exc: Exception, *, what: str = "skipped"
) -> None:
    """Record one note's (or vault's) failure; a bad value says it all, anything else
    is a fault worth its traceback in the log (once per recording, not per poll)."""
    expected = isinstance(exc, ValueError | StorageError)
    reason = f"{exc}" if expected else f"{type(exc).__name__}: {exc}"
    if await skips.failed(vault_id, path, f"{reason}; {what}") and not expected:
        log.error("reminder %s (vault %s) failed", path, vault_id, exc_info=exc)


def preferred(conversations: Sequence[Conversation], source: Any) -> tuple[Conversation, ...]:
    """The note's own platform first ("the platform they used"), then the others."""
    platform = source.get("platform") if isinstance(source, Mapping) else None
    return tuple(sorted(conversations, key=lambda c: c.platform != platform))
