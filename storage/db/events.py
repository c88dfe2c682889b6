"""Inbound events, recorded before they are handled: the claim that makes a
platform's retry or a second process a no-op, and the files that came with them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import (
    EVENTS,
    FILES,
    InboundEvent,
)


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A file recorded with its event, to be handed over again after a crash."""

    kind: str
    file_name: str
    mime_type: str | None
    data: bytes


class EventRecords:
    """Inbound events and their files."""

    engine: AsyncEngine

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
