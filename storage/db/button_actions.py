"""The one-use actions behind buttons: what a press does, stored under a short id that
fits a platform's button (Telegram's callback_data holds 64 bytes)."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import and_, cast, func, select, update
from sqlalchemy.dialects.postgresql import ARRAY, TEXT, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db.chat_tables import BUTTON_ACTIONS, ButtonAction

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def short_id(length: int = 10) -> str:
    """A random id short enough for Telegram's 64-byte callback_data."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


class ButtonActions:
    """Button actions, each used once."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(
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

    async def use(self, action_id: str, now: datetime) -> ButtonAction | None:
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

    async def get(self, action_id: str) -> ButtonAction | None:
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
