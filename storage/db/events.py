"""Inbound events, recorded before they are handled: the claim that makes a
platform's retry or a second process a no-op, and the files that came with them.

`arrive` is the engine's first step, in one round trip: may the sender use the bot,
record the event (only then), and who they are and which vault is theirs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import (
    EVENTS,
    FILES,
    InboundEvent,
)
from storage.db.connection import autocommit
from storage.db.people import Person, person_of
from storage.db.vault_tables import VaultInfo


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file recorded with its event, to be handed over again after a crash."""

    kind: str
    file_name: str
    mime_type: str | None
    data: bytes


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event as it is recorded: who sent it where, and what it says."""

    platform: str
    event_id: str
    kind: str  # message | button
    user_key: str  # "platform:user id"
    chat_id: str
    thread_id: str | None
    text: str
    received_at: datetime
    owner: int = 0  # the liveness token of the process handling it

    @property
    def user_id(self) -> str:
        return self.user_key.split(":", 1)[1]


@dataclass(frozen=True, slots=True)
class Arrival:
    """What the first step found: may the sender use the bot, is this the event's first
    delivery (recorded now), and the person and their own vault (None on first contact)."""

    admitted: bool
    first: bool
    person: Person | None
    vault: VaultInfo | None
    # Whether a rejection in this conversation waits for its reason (see `Awaited`);
    # True when the arrival was not asked, so that the caller looks.
    awaited: bool = True


@dataclass(frozen=True, slots=True)
class Awaited:
    """What the engine asks `arrive` to look at on the way: whether the sender's
    rejection in `conversation_key`, decided since `since`, still has the outcome
    `asked` (the "Tell me why" the next message answers)."""

    conversation_key: str
    asked: str
    since: datetime


# Admission, the record (only for an admitted sender) and the person with their own
# vault, in one statement: a plain message costs the engine one round trip here.
_ARRIVE = text(
    """
    WITH allowed AS (
        SELECT CAST(:by_setting AS boolean)
            OR EXISTS (SELECT 1 FROM admitted_identities WHERE identity = :user_key) AS ok
    ), recorded AS (
        INSERT INTO inbound_events (platform, event_id, kind, user_key, chat_id, thread_id,
                                    text, received_at, status, owner)
        SELECT :platform, :event_id, :kind, :user_key, :chat_id, :thread_id,
               :text, :received_at, 'received', :owner
        FROM allowed WHERE ok
        ON CONFLICT DO NOTHING
        RETURNING event_id
    )
    SELECT allowed.ok AS admitted, EXISTS (SELECT 1 FROM recorded) AS first,
           u.id, u.name, u.timezone, u.digest_enabled, u.digest_time, u.weekly_day,
           u.created_at,
           v.id AS vault_id, v.name AS vault_name, v.kind AS vault_kind,
           EXISTS (
               SELECT 1 FROM approvals a
               WHERE a.conversation_key = CAST(:awaited_key AS text) AND a.user_id = u.id
                 AND a.status = 'rejected' AND a.outcome = CAST(:awaited_asked AS text)
                 AND a.decided_at >= CAST(:awaited_since AS timestamptz)
           ) AS awaited
    FROM allowed
    LEFT JOIN identities i
        ON allowed.ok AND i.platform = :platform AND i.platform_user_id = :user_id
    LEFT JOIN users u ON u.id = i.user_id
    LEFT JOIN vaults v ON v.user_id = u.id
    """
)


class EventRecords:
    """Inbound events and their files."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def arrive(
        self,
        event: NewEvent,
        *,
        by_setting: bool,
        files: Sequence[StoredFile] = (),
        awaited: Awaited | None = None,
    ) -> Arrival:
        """Record `event` if its sender may use the bot (`by_setting`: the allow-list
        names them; else a claim or a link admitted them) and say who they are, and
        whether a rejection waits for its reason (`awaited`: what to look for; without
        it, nothing is looked at and `Arrival.awaited` is True). Files are recorded
        with the event, in the same transaction."""
        params = {
            **{name: getattr(event, name) for name in NewEvent.__dataclass_fields__},
            "user_id": event.user_id,
            "by_setting": by_setting,
            "awaited_key": None if awaited is None else awaited.conversation_key,
            "awaited_asked": None if awaited is None else awaited.asked,
            "awaited_since": None if awaited is None else awaited.since,
        }
        if not files:
            async with autocommit(self.engine).connect() as conn:
                row = (await conn.execute(_ARRIVE, params)).one()
        else:
            async with self.engine.begin() as conn:
                row = (await conn.execute(_ARRIVE, params)).one()
                if row.first:
                    await conn.execute(insert(FILES), _file_rows(event, files))
        m = row._mapping
        person = None if m["id"] is None else person_of(row)
        vault = (
            None
            if m["vault_id"] is None
            else VaultInfo(m["vault_id"], m["vault_name"], m["vault_kind"], m["id"])
        )
        looked = awaited is None or bool(m["awaited"])
        return Arrival(bool(m["admitted"]), bool(m["first"]), person, vault, looked)

    async def files(self, platform: str, event_id: str) -> list[StoredFile]:
        c = FILES.c
        stmt = (
            select(c.kind, c.file_name, c.mime_type, c.data)
            .where(and_(c.platform == platform, c.event_id == event_id))
            .order_by(c.position)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [StoredFile(*row) for row in rows]

    async def finish(
        self,
        platform: str,
        event_id: str,
        status: str,
        at: datetime,
        history: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Mark the event handled; its files are in the vault by now, so drop their copy;
        and keep its turn's `history` (storage.db.conversations.history_rows). One
        statement: a restart finds the event finished with its history, or neither."""
        params = {"platform": platform, "event_id": event_id, "status": status, "at": at}
        params["history"] = json.dumps(list(history), default=_iso, ensure_ascii=False)
        async with autocommit(self.engine).connect() as conn:
            await conn.execute(_FINISH, params)

    async def unfinished(self) -> list[InboundEvent]:
        """Events recorded but never finished (the process died while handling them)."""
        stmt = select(EVENTS).where(EVENTS.c.status == "received")
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [InboundEvent.model_validate(row._mapping) for row in rows]

    async def claim(self, platform: str, event_id: str, *, old: int, new: int) -> bool:
        """Take over an unfinished event from a dead process; only one claimant wins."""
        c = EVENTS.c
        stmt = (
            update(EVENTS)
            .where(
                and_(
                    c.platform == platform,
                    c.event_id == event_id,
                    c.owner == old,
                    c.status == "received",
                )
            )
            .values(owner=new)
            .returning(c.event_id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None


# The event marked finished, its files' copy dropped and its turn's history kept (rows
# as one JSON array, in their order), in one statement and so in one commit.
_FINISH = text(
    """
    WITH dropped AS (
        DELETE FROM inbound_files WHERE platform = :platform AND event_id = :event_id
    ), kept AS (
        INSERT INTO messages (conversation_key, user_id, role, content, tool_calls,
                              tool_call_id, created_at)
        SELECT m ->> 'conversation_key', CAST(m ->> 'user_id' AS integer), m ->> 'role',
               m ->> 'content', NULLIF(m -> 'tool_calls', 'null'::jsonb),
               m ->> 'tool_call_id', CAST(m ->> 'created_at' AS timestamptz)
        FROM jsonb_array_elements(CAST(:history AS jsonb)) WITH ORDINALITY AS h(m, n)
        ORDER BY n
    )
    UPDATE inbound_events SET status = :status, processed_at = :at
    WHERE platform = :platform AND event_id = :event_id
    """
)


def _iso(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _file_rows(event: NewEvent, files: Sequence[StoredFile]) -> list[dict[str, object]]:
    return [
        {
            "platform": event.platform,
            "event_id": event.event_id,
            "position": n,
            "kind": f.kind,
            "file_name": f.file_name,
            "mime_type": f.mime_type,
            "data": f.data,
        }
        for n, f in enumerate(files)
    ]
