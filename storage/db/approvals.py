"""Pending approvals of risky writes, and the one-use actions behind buttons."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import and_, cast, func, select, update
from sqlalchemy.dialects.postgresql import ARRAY, TEXT, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import (
    APPROVALS,
    BUTTON_ACTIONS,
    Approval,
    ButtonAction,
)

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def short_id(length: int = 10) -> str:
    """A random id short enough for Telegram's 64-byte callback_data."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


class ApprovalRecords:
    """Approvals and button actions."""

    engine: AsyncEngine

    async def add_approval(self, approval: Approval) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(APPROVALS).values(**approval.model_dump()))

    async def get_approval(self, approval_id: str) -> Approval | None:
        stmt = select(APPROVALS).where(APPROVALS.c.id == approval_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else Approval.model_validate(row._mapping)

    async def pending_approvals(self, user_id: int | None, now: datetime) -> list[Approval]:
        """Approvals still waiting for a decision (of one person, or everyone's), oldest first."""
        stmt = (
            select(APPROVALS)
            .where(and_(APPROVALS.c.status == "pending", APPROVALS.c.expires_at > now))
            .order_by(APPROVALS.c.created_at)
        )
        if user_id is not None:
            stmt = stmt.where(APPROVALS.c.user_id == user_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [Approval.model_validate(row._mapping) for row in rows]

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

    async def answer_rejections(
        self, conversation_key: str, user_id: int, since: datetime, asked: str, outcome: str
    ) -> list[Approval]:
        """Settle with `outcome` the rejections of `user_id` in this conversation, decided
        after `since`, whose outcome is still `asked` (a reason was asked for); the
        approvals it settled, newest first. Only one message can answer each."""
        c = APPROVALS.c
        stmt = (
            update(APPROVALS)
            .where(
                and_(
                    c.conversation_key == conversation_key,
                    c.user_id == user_id,
                    c.status == "rejected",
                    c.outcome == asked,
                    c.decided_at >= since,
                )
            )
            .values(outcome=outcome)
            .returning(*APPROVALS.c)
        )
        async with self.engine.begin() as conn:
            rows = (await conn.execute(stmt)).all()
        found = [Approval.model_validate(row._mapping) for row in rows]
        return sorted(found, key=lambda a: a.decided_at or a.created_at, reverse=True)

    async def add_button_action(
        self,
        user_id: int,
        kind: str,
        payload: dict[str, Any],
        now: datetime,
        *,
        vault_id: int = 1,
    ) -> str:
        action_id = short_id()
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(BUTTON_ACTIONS).values(
                    id=action_id,
                    user_id=user_id,
                    kind=kind,
                    payload=payload,
                    created_at=now,
                    vault_id=vault_id,
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

    async def follow_note_change(
        self, vault_id: int, path: str, old_hash: str, new_hash: str
    ) -> int:
        """Buttons made for the note at `path` as it was (`old_hash`) now stand for it as
        it is (`new_hash`): for a change the person did not make (the text read from a
        shared link or photo), after which their category buttons must still work. Only
        unused buttons made for exactly that version follow; how many did."""
        c = BUTTON_ACTIONS.c
        stmt = (
            update(BUTTON_ACTIONS)
            .where(
                c.vault_id == vault_id,
                c.used_at.is_(None),
                c.payload["path"].astext == path,
                c.payload["content_hash"].astext == old_hash,
            )
            .values(
                payload=func.jsonb_set(
                    c.payload,
                    cast(["content_hash"], ARRAY(TEXT)),
                    func.to_jsonb(cast(new_hash, TEXT)),
                )
            )
        )
        async with self.engine.begin() as conn:
            result = await conn.execute(stmt)
        return int(result.rowcount or 0)
