"""Pending approvals of risky writes: stored with a preview, decided once."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import APPROVALS, Approval
from storage.db.connection import autocommit

# Asked of every message, so built once, not again with its cache key for each.
_ANSWER_REJECTIONS = (
    update(APPROVALS)
    .where(
        APPROVALS.c.conversation_key == bindparam("key"),
        APPROVALS.c.user_id == bindparam("user"),
        APPROVALS.c.status == "rejected",
        APPROVALS.c.outcome == bindparam("asked"),
        APPROVALS.c.decided_at >= bindparam("since"),
    )
    .values(outcome=bindparam("answer"))
    .returning(*APPROVALS.c)
)


class ApprovalRecords:
    """Approvals of risky writes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(self, approval: Approval) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(APPROVALS).values(**approval.model_dump()))

    async def get(self, approval_id: str) -> Approval | None:
        stmt = select(APPROVALS).where(APPROVALS.c.id == approval_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else Approval.model_validate(row._mapping)

    async def pending(self, user_id: int | None, now: datetime) -> list[Approval]:
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

    async def reopen(self, approval_id: str) -> bool:
        """Put an approval whose run was cut short (a crash) back to pending."""
        stmt = (
            update(APPROVALS)
            .where(and_(APPROVALS.c.id == approval_id, APPROVALS.c.status == "running"))
            .values(status="pending", decided_at=None)
            .returning(APPROVALS.c.id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def claim(self, approval_id: str, status: str, now: datetime) -> bool:
        """Move a pending approval to `status`; only one press can ever win."""
        stmt = (
            update(APPROVALS)
            .where(and_(APPROVALS.c.id == approval_id, APPROVALS.c.status == "pending"))
            .values(status=status, decided_at=now)
            .returning(APPROVALS.c.id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def settle(self, approval_id: str, status: str, outcome: str) -> None:
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
        # Asked of every message: one statement is atomic alone, without BEGIN and COMMIT.
        async with autocommit(self.engine).connect() as conn:
            rows = (
                await conn.execute(
                    _ANSWER_REJECTIONS,
                    {
                        "key": conversation_key,
                        "user": user_id,
                        "asked": asked,
                        "since": since,
                        "answer": outcome,
                    },
                )
            ).all()
        found = [Approval.model_validate(row._mapping) for row in rows]
        return sorted(found, key=lambda a: a.decided_at or a.created_at, reverse=True)
