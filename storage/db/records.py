"""Database access for the conversation engine: one method per question or write."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, delete, exists, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import SQLModel

from storage.db.admission import new_code, normal_code
from storage.db.chat_tables import (
    APPROVALS,
    BUTTON_ACTIONS,
    EVENTS,
    FILES,
    IDENTITIES,
    LINK_CODES,
    MESSAGES,
    TOOL_CALLS,
    USERS,
    Approval,
    ButtonAction,
    Identity,
    InboundEvent,
    ToolCallLog,
)

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
_ENGINE_TABLES = [
    USERS,
    IDENTITIES,
    LINK_CODES,
    EVENTS,
    FILES,
    MESSAGES,
    APPROVALS,
    BUTTON_ACTIONS,
    TOOL_CALLS,
]


LINK_CODE_LENGTH = 8  # ~40 bits; with the lockout after wrong codes, not guessable


def short_id(length: int = 10) -> str:
    """A random id short enough for Telegram's 64-byte callback_data."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


@dataclass(frozen=True, slots=True)
class Person:
    """A user as the engine sees them, resolved from one platform identity."""

    id: int
    name: str
    timezone: str | None
    digest_enabled: bool
    digest_time: str | None
    weekly_day: int


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file recorded with its event, to be handed over again after a crash."""

    kind: str
    file_name: str
    mime_type: str | None
    data: bytes


@dataclass(frozen=True, slots=True)
class HistoryItem:
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None


def _person(row: Row[Any]) -> Person:
    m = row._mapping
    return Person(
        id=m["id"],
        name=m["name"],
        timezone=m["timezone"],
        digest_enabled=m["digest_enabled"],
        digest_time=m["digest_time"],
        weekly_day=m["weekly_day"],
    )


def _identity_is(platform: str, platform_user_id: str) -> Any:
    return and_(
        IDENTITIES.c.platform == platform, IDENTITIES.c.platform_user_id == platform_user_id
    )


class Records:
    """The engine's tables. Every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create_schema(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(SQLModel.metadata.create_all, tables=_ENGINE_TABLES)

    # --- inbound events -------------------------------------------------------------

    async def record_event(
        self,
        *,
        platform: str,
        event_id: str,
        kind: str,
        user_key: str,
        chat_id: str,
        thread_id: str | None,
        text: str,
        received_at: datetime,
        owner: int = 0,
        files: Sequence[StoredFile] = (),
    ) -> bool:
        """Store the event (and its files, in the same transaction); False when it was
        recorded before (a platform retry)."""
        stmt = (
            insert(EVENTS)
            .values(
                platform=platform,
                event_id=event_id,
                kind=kind,
                user_key=user_key,
                chat_id=chat_id,
                thread_id=thread_id,
                text=text,
                received_at=received_at,
                status="received",
                owner=owner,
            )
            .on_conflict_do_nothing()
            .returning(EVENTS.c.event_id)
        )
        async with self.engine.begin() as conn:
            if (await conn.execute(stmt)).first() is None:
                return False
            if files:
                rows = [
                    {
                        "platform": platform,
                        "event_id": event_id,
                        "position": n,
                        "kind": f.kind,
                        "file_name": f.file_name,
                        "mime_type": f.mime_type,
                        "data": f.data,
                    }
                    for n, f in enumerate(files)
                ]
                await conn.execute(insert(FILES), rows)
            return True

    async def event_files(self, platform: str, event_id: str) -> list[StoredFile]:
        c = FILES.c
        stmt = (
            select(c.kind, c.file_name, c.mime_type, c.data)
            .where(and_(c.platform == platform, c.event_id == event_id))
            .order_by(c.position)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [StoredFile(*row) for row in rows]

    async def finish_event(self, platform: str, event_id: str, status: str, at: datetime) -> None:
        """Mark the event handled; its files are in the vault by now, so drop their copy."""
        stmt = (
            update(EVENTS)
            .where(and_(EVENTS.c.platform == platform, EVENTS.c.event_id == event_id))
            .values(status=status, processed_at=at)
        )
        async with self.engine.begin() as conn:
            await conn.execute(
                delete(FILES).where(
                    and_(FILES.c.platform == platform, FILES.c.event_id == event_id)
                )
            )
            await conn.execute(stmt)

    async def unfinished_events(self) -> list[InboundEvent]:
        """Events recorded but never finished (the process died while handling them)."""
        stmt = select(EVENTS).where(EVENTS.c.status == "received")
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [InboundEvent.model_validate(row._mapping) for row in rows]

    async def claim_event(self, platform: str, event_id: str, *, old: int, new: int) -> bool:
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

    # --- people ---------------------------------------------------------------------

    async def person_for(self, platform: str, platform_user_id: str) -> Person | None:
        stmt = (
            select(USERS)
            .join(IDENTITIES, IDENTITIES.c.user_id == USERS.c.id)
            .where(_identity_is(platform, platform_user_id))
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else _person(row)

    async def add_person(
        self,
        *,
        platform: str,
        platform_user_id: str,
        name: str,
        timezone: str | None,
        home_chat_id: str | None,
        now: datetime,
    ) -> Person:
        """Create a user with one identity; a concurrent creation of the same identity wins once."""
        async with self.engine.begin() as conn:
            user_id = (
                await conn.execute(
                    insert(USERS)
                    .values(name=name, timezone=timezone, created_at=now)
                    .returning(USERS.c.id)
                )
            ).scalar_one()
            inserted = (
                await conn.execute(
                    insert(IDENTITIES)
                    .values(
                        platform=platform,
                        platform_user_id=platform_user_id,
                        user_id=user_id,
                        display_name=name,
                        home_chat_id=home_chat_id,
                        created_at=now,
                    )
                    .on_conflict_do_nothing()
                    .returning(IDENTITIES.c.user_id)
                )
            ).first()
            if inserted is None:
                await conn.execute(delete(USERS).where(USERS.c.id == user_id))
        person = await self.person_for(platform, platform_user_id)
        assert person is not None
        return person

    async def identities_of(self, user_id: int) -> list[Identity]:
        stmt = select(IDENTITIES).where(IDENTITIES.c.user_id == user_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Identity.model_validate(row._mapping) for row in rows]

    async def people(self) -> list[Person]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(USERS).order_by(USERS.c.id))).all()
        return [_person(row) for row in rows]

    async def update_person(self, user_id: int, **values: Any) -> Person:
        stmt = update(USERS).where(USERS.c.id == user_id).values(**values).returning(*USERS.c)
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).one()
        return _person(row)

    async def new_link_code(self, user_id: int, expires_at: datetime) -> str:
        code = new_code(LINK_CODE_LENGTH)
        async with self.engine.begin() as conn:
            await conn.execute(delete(LINK_CODES).where(LINK_CODES.c.user_id == user_id))
            await conn.execute(
                insert(LINK_CODES).values(code=code, user_id=user_id, expires_at=expires_at)
            )
        return code

    async def redeem_link_code(
        self, code: str, *, platform: str, platform_user_id: str, name: str, now: datetime
    ) -> Person | None:
        """Attach this identity to the user who asked for `code`; None if the code is bad."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    delete(LINK_CODES)
                    .where(
                        and_(LINK_CODES.c.code == normal_code(code), LINK_CODES.c.expires_at > now)
                    )
                    .returning(LINK_CODES.c.user_id)
                )
            ).first()
            if row is None:
                return None
            user_id = row[0]
            previous = (
                await conn.execute(
                    select(IDENTITIES.c.user_id).where(_identity_is(platform, platform_user_id))
                )
            ).scalar()
            await conn.execute(
                insert(IDENTITIES)
                .values(
                    platform=platform,
                    platform_user_id=platform_user_id,
                    user_id=user_id,
                    display_name=name,
                    created_at=now,
                )
                .on_conflict_do_update(
                    index_elements=["platform", "platform_user_id"], set_={"user_id": user_id}
                )
            )
            if previous is not None and previous != user_id:
                await conn.execute(_delete_if_unused(previous))
        return await self.person_for(platform, platform_user_id)

    # --- conversation history -------------------------------------------------------

    async def add_messages(
        self,
        conversation_key: str,
        user_id: int | None,
        items: Sequence[HistoryItem],
        now: datetime,
    ) -> None:
        if not items:
            return
        rows = [
            {
                "conversation_key": conversation_key,
                "user_id": user_id,
                "role": item.role,
                "content": item.content,
                "tool_calls": item.tool_calls,
                "tool_call_id": item.tool_call_id,
                "created_at": now,
            }
            for item in items
        ]
        async with self.engine.begin() as conn:
            await conn.execute(insert(MESSAGES), rows)

    async def recent_messages(self, conversation_key: str, limit: int) -> list[HistoryItem]:
        """The last `limit` messages of a conversation, oldest first."""
        c = MESSAGES.c
        stmt = (
            select(c.role, c.content, c.tool_calls, c.tool_call_id)
            .where(c.conversation_key == conversation_key)
            .order_by(c.id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [HistoryItem(*row) for row in reversed(rows)]

    # --- approvals and buttons ------------------------------------------------------

    async def add_approval(self, approval: Approval) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(APPROVALS).values(**approval.model_dump()))

    async def get_approval(self, approval_id: str) -> Approval | None:
        stmt = select(APPROVALS).where(APPROVALS.c.id == approval_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else Approval.model_validate(row._mapping)

    async def reopen_approval(self, approval_id: str) -> bool:
        """Put an approval whose run was cut short (a crash) back to pending."""
        stmt = (
            update(APPROVALS)
            .where(and_(APPROVALS.c.id == approval_id, APPROVALS.c.status == "running"))
            .values(status="pending", decided_at=None)
            .returning(APPROVALS.c.id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def claim_approval(self, approval_id: str, status: str, now: datetime) -> bool:
        """Move a pending approval to `status`; only one press can ever win."""
        stmt = (
            update(APPROVALS)
            .where(and_(APPROVALS.c.id == approval_id, APPROVALS.c.status == "pending"))
            .values(status=status, decided_at=now)
            .returning(APPROVALS.c.id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def settle_approval(self, approval_id: str, status: str, outcome: str) -> None:
        stmt = (
            update(APPROVALS)
            .where(APPROVALS.c.id == approval_id)
            .values(status=status, outcome=outcome)
        )
        async with self.engine.begin() as conn:
            await conn.execute(stmt)

    async def add_button_action(
        self, user_id: int, kind: str, payload: dict[str, Any], now: datetime
    ) -> str:
        action_id = short_id()
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(BUTTON_ACTIONS).values(
                    id=action_id, user_id=user_id, kind=kind, payload=payload, created_at=now
                )
            )
        return action_id

    async def use_button_action(self, action_id: str, now: datetime) -> ButtonAction | None:
        """Mark the action used and return it; None if unknown or already used."""
        c = BUTTON_ACTIONS.c
        stmt = (
            update(BUTTON_ACTIONS)
            .where(and_(c.id == action_id, c.used_at.is_(None)))
            .values(used_at=now)
            .returning(*BUTTON_ACTIONS.c)
        )
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else ButtonAction.model_validate(row._mapping)

    async def get_button_action(self, action_id: str) -> ButtonAction | None:
        stmt = select(BUTTON_ACTIONS).where(BUTTON_ACTIONS.c.id == action_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else ButtonAction.model_validate(row._mapping)

    # --- tool-call log --------------------------------------------------------------

    async def log_tool_calls(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            async with self.engine.begin() as conn:
                await conn.execute(insert(TOOL_CALLS), list(rows))

    async def event_has_tool_calls(self, event_key: str) -> bool:
        stmt = select(exists().where(TOOL_CALLS.c.event_key == event_key))
        async with self.engine.connect() as conn:
            return bool((await conn.execute(stmt)).scalar())

    async def last_written_entry(
        self, conversation_key: str, user_id: int, since: datetime
    ) -> str | None:
        """The note this person most recently filed (or refiled) in this conversation."""
        c = TOOL_CALLS.c
        stmt = (
            select(c.entry_path)
            .where(
                and_(
                    c.conversation_key == conversation_key,
                    c.user_id == user_id,
                    c.tool.in_(("capture", "move_entry")),
                    c.outcome == "ok",
                    c.entry_path.is_not(None),
                    c.created_at >= since,
                )
            )
            .order_by(c.id.desc())
            .limit(1)
        )
        async with self.engine.connect() as conn:
            value = (await conn.execute(stmt)).scalar()
        return None if value is None else str(value)

    async def tool_calls(self, conversation_key: str | None = None) -> list[ToolCallLog]:
        stmt = select(TOOL_CALLS).order_by(TOOL_CALLS.c.id)
        if conversation_key is not None:
            stmt = stmt.where(TOOL_CALLS.c.conversation_key == conversation_key)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [ToolCallLog.model_validate(row._mapping) for row in rows]


def _delete_if_unused(user_id: int) -> Any:
    """Delete the user made on first contact from an account that has since been linked,
    if nothing refers to it any more."""
    referrers = (IDENTITIES, APPROVALS, BUTTON_ACTIONS, LINK_CODES)
    unused = [~exists().where(t.c.user_id == USERS.c.id) for t in referrers]
    return delete(USERS).where(and_(USERS.c.id == user_id, *unused))
