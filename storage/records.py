"""Database access for the conversation engine: one method per question or write."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import SQLModel

from storage.chat_tables import (
    Approval,
    ButtonAction,
    Identity,
    InboundEvent,
    LinkCode,
    Message,
    ToolCallLog,
    User,
)

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


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
class HistoryItem:
    role: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    tool_call_id: str | None


def _person(user: Any) -> Person:
    return Person(
        id=user.id,
        name=user.name,
        timezone=user.timezone,
        digest_enabled=user.digest_enabled,
        digest_time=user.digest_time,
        weekly_day=user.weekly_day,
    )


class Records:
    """The engine's tables. Every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create_schema(self) -> None:
        tables = [
            t.__table__  # type: ignore[attr-defined]
            for t in (User, Identity, LinkCode, InboundEvent, Message, Approval, ButtonAction)
        ] + [ToolCallLog.__table__]  # type: ignore[attr-defined]
        async with self.engine.begin() as conn:
            await conn.run_sync(SQLModel.metadata.create_all, tables=tables)

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
    ) -> bool:
        """Store the event; False when it was recorded before (a platform retry)."""
        stmt = (
            insert(InboundEvent)
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
            )
            .on_conflict_do_nothing()
            .returning(InboundEvent.event_id)  # type: ignore[arg-type]
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def finish_event(self, platform: str, event_id: str, status: str, at: datetime) -> None:
        stmt = (
            update(InboundEvent)
            .where(and_(InboundEvent.platform == platform, InboundEvent.event_id == event_id))  # type: ignore[arg-type]
            .values(status=status, processed_at=at)
        )
        async with self.engine.begin() as conn:
            await conn.execute(stmt)

    async def unfinished_events(self) -> list[InboundEvent]:
        """Events recorded but never finished (the process died while handling them)."""
        stmt = select(InboundEvent).where(InboundEvent.status == "received")  # type: ignore[arg-type]
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [InboundEvent.model_validate(row._mapping) for row in rows]

    # --- people ---------------------------------------------------------------------

    async def person_for(self, platform: str, platform_user_id: str) -> Person | None:
        stmt = (
            select(User)
            .join(Identity, Identity.user_id == User.id)  # type: ignore[arg-type]
            .where(
                and_(
                    Identity.platform == platform,  # type: ignore[arg-type]
                    Identity.platform_user_id == platform_user_id,  # type: ignore[arg-type]
                )
            )
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
                    insert(User)
                    .values(name=name, timezone=timezone, created_at=now)
                    .returning(User.id)  # type: ignore[arg-type]
                )
            ).scalar_one()
            inserted = (
                await conn.execute(
                    insert(Identity)
                    .values(
                        platform=platform,
                        platform_user_id=platform_user_id,
                        user_id=user_id,
                        display_name=name,
                        home_chat_id=home_chat_id,
                        created_at=now,
                    )
                    .on_conflict_do_nothing()
                    .returning(Identity.user_id)  # type: ignore[arg-type]
                )
            ).first()
            if inserted is None:
                await conn.execute(delete(User).where(User.id == user_id))  # type: ignore[arg-type]
        person = await self.person_for(platform, platform_user_id)
        assert person is not None
        return person

    async def set_home_chat(self, platform: str, platform_user_id: str, chat_id: str) -> None:
        stmt = (
            update(Identity)
            .where(
                and_(
                    Identity.platform == platform,  # type: ignore[arg-type]
                    Identity.platform_user_id == platform_user_id,  # type: ignore[arg-type]
                )
            )
            .values(home_chat_id=chat_id)
        )
        async with self.engine.begin() as conn:
            await conn.execute(stmt)

    async def identities_of(self, user_id: int) -> list[Identity]:
        stmt = select(Identity).where(Identity.user_id == user_id)  # type: ignore[arg-type]
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Identity.model_validate(row._mapping) for row in rows]

    async def people(self) -> list[Person]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(User).order_by(User.id))).all()  # type: ignore[arg-type]
        return [_person(row) for row in rows]

    async def update_person(self, user_id: int, **values: Any) -> Person:
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    update(User).where(User.id == user_id).values(**values).returning(User)  # type: ignore[arg-type]
                )
            ).one()
        return _person(row)

    async def new_link_code(self, user_id: int, expires_at: datetime) -> str:
        code = "".join(secrets.choice("0123456789") for _ in range(6))
        async with self.engine.begin() as conn:
            await conn.execute(delete(LinkCode).where(LinkCode.user_id == user_id))  # type: ignore[arg-type]
            await conn.execute(
                insert(LinkCode).values(code=code, user_id=user_id, expires_at=expires_at)
            )
        return code

    async def redeem_link_code(
        self, code: str, *, platform: str, platform_user_id: str, name: str, now: datetime
    ) -> Person | None:
        """Attach this identity to the user who asked for `code`; None if the code is bad."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    delete(LinkCode)
                    .where(and_(LinkCode.code == code, LinkCode.expires_at > now))  # type: ignore[arg-type]
                    .returning(LinkCode.user_id)  # type: ignore[arg-type]
                )
            ).first()
            if row is None:
                return None
            user_id = row[0]
            await conn.execute(
                insert(Identity)
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
            await conn.execute(insert(Message), rows)

    async def recent_messages(self, conversation_key: str, limit: int) -> list[HistoryItem]:
        """The last `limit` messages of a conversation, oldest first."""
        stmt = (
            select(Message.role, Message.content, Message.tool_calls, Message.tool_call_id)  # type: ignore[call-overload]
            .where(Message.conversation_key == conversation_key)
            .order_by(Message.id.desc())  # type: ignore[union-attr]
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [HistoryItem(*row) for row in reversed(rows)]

    # --- approvals and buttons ------------------------------------------------------

    async def add_approval(self, approval: Approval) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(Approval).values(**approval.model_dump()))

    async def get_approval(self, approval_id: str) -> Approval | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(select(Approval).where(Approval.id == approval_id))  # type: ignore[arg-type]
            ).first()
        return None if row is None else Approval.model_validate(row._mapping)

    async def claim_approval(self, approval_id: str, status: str, now: datetime) -> bool:
        """Move a pending approval to `status`; only one press can ever win."""
        stmt = (
            update(Approval)
            .where(and_(Approval.id == approval_id, Approval.status == "pending"))  # type: ignore[arg-type]
            .values(status=status, decided_at=now)
            .returning(Approval.id)  # type: ignore[arg-type]
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def settle_approval(self, approval_id: str, status: str, outcome: str) -> None:
        stmt = (
            update(Approval)
            .where(Approval.id == approval_id)  # type: ignore[arg-type]
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
                insert(ButtonAction).values(
                    id=action_id, user_id=user_id, kind=kind, payload=payload, created_at=now
                )
            )
        return action_id

    async def use_button_action(self, action_id: str, now: datetime) -> ButtonAction | None:
        """Mark the action used and return it; None if unknown or already used."""
        stmt = (
            update(ButtonAction)
            .where(and_(ButtonAction.id == action_id, ButtonAction.used_at.is_(None)))  # type: ignore[arg-type, union-attr]
            .values(used_at=now)
            .returning(ButtonAction)  # type: ignore[arg-type]
        )
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else ButtonAction.model_validate(row._mapping)

    async def get_button_action(self, action_id: str) -> ButtonAction | None:
        stmt = select(ButtonAction).where(ButtonAction.id == action_id)  # type: ignore[arg-type]
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else ButtonAction.model_validate(row._mapping)

    # --- tool-call log --------------------------------------------------------------

    async def log_tool_calls(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            async with self.engine.begin() as conn:
                await conn.execute(insert(ToolCallLog), list(rows))

    async def last_written_entry(self, conversation_key: str, since: datetime) -> str | None:
        """The entry path most recently written by a tool in this conversation."""
        stmt = (
            select(ToolCallLog.entry_path)  # type: ignore[call-overload]
            .where(
                and_(
                    ToolCallLog.conversation_key == conversation_key,
                    ToolCallLog.entry_path.is_not(None),  # type: ignore[union-attr]
                    ToolCallLog.created_at >= since,
                )
            )
            .order_by(ToolCallLog.id.desc())  # type: ignore[union-attr]
            .limit(1)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else str(row[0])

    async def tool_calls(self, conversation_key: str | None = None) -> list[ToolCallLog]:
        stmt = select(ToolCallLog).order_by(ToolCallLog.id)  # type: ignore[arg-type]
        if conversation_key is not None:
            stmt = stmt.where(ToolCallLog.conversation_key == conversation_key)  # type: ignore[arg-type]
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [ToolCallLog.model_validate(row._mapping) for row in rows]


def expiry(now: datetime, ttl_seconds: float) -> datetime:
    return now + timedelta(seconds=ttl_seconds)
