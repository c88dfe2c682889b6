"""Who was admitted to the bot besides BRAINBOT_ALLOWED_USERS: the owner who claimed a
fresh install with its one-time code, and identities linked to an admitted person.

A new install is closed: platforms refuse everyone until someone sends the claim
code that `brainbot run` logs and `brainbot doctor` shows. The code is single use.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import and_, insert, select, update
from sqlalchemy.dialects.postgresql import Insert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import _utc_column, table_of

# No 0/O, 1/I/L: read off a log and typed on a phone.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 12  # ~59 bits


class ClaimCode(SQLModel, table=True):
    """The one-time code that makes its sender the owner of a fresh install."""

    __tablename__ = "claim_codes"

    code: str = Field(primary_key=True)
    created_at: datetime = _utc_column()
    claimed_at: datetime | None = _utc_column(nullable=True)
    claimed_by: str | None = None  # the identity key, e.g. "telegram:42"


class AdmittedIdentity(SQLModel, table=True):
    """A platform identity allowed in by a claim or a link (not by the setting)."""

    __tablename__ = "admitted_identities"

    identity: str = Field(primary_key=True)  # "platform:user id"
    how: str  # claim | link
    admitted_at: datetime = _utc_column()


CLAIM_CODES = table_of(ClaimCode)
ADMITTED = table_of(AdmittedIdentity)


def new_code(length: int = CODE_LENGTH) -> str:
    """A random code in groups of four: `ABCD-EFGH-JKLM`."""
    return normal_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(length)))


def normal_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes) in its stored form."""
    raw = "".join(c for c in text.upper() if c.isalnum())
    return "-".join(raw[i : i + 4] for i in range(0, len(raw), 4))


class Admission:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def is_admitted(self, identity: str) -> bool:
        stmt = select(ADMITTED.c.identity).where(ADMITTED.c.identity == identity)
        async with self.engine.connect() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def has_owner(self) -> bool:
        """Whether anyone ever claimed this install."""
        stmt = select(CLAIM_CODES.c.code).where(CLAIM_CODES.c.claimed_at.is_not(None)).limit(1)
        async with self.engine.connect() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def claim_code(self, now: datetime) -> str | None:
        """The open claim code (made on first use); None once the install was claimed."""
        if await self.has_owner():
            return None
        async with self.engine.begin() as conn:
            open_code = (
                await conn.execute(
                    select(CLAIM_CODES.c.code).where(CLAIM_CODES.c.claimed_at.is_(None)).limit(1)
                )
            ).scalar()
            if open_code is not None:
                return str(open_code)
            code = new_code()
            await conn.execute(insert(CLAIM_CODES).values(code=code, created_at=now))
            return code

    async def claim(self, code: str, identity: str, now: datetime) -> bool:
        """Admit `identity` as the owner if `code` is the open claim code (once only)."""
        stmt = (
            update(CLAIM_CODES)
            .where(
                and_(CLAIM_CODES.c.code == normal_code(code), CLAIM_CODES.c.claimed_at.is_(None))
            )
            .values(claimed_at=now, claimed_by=identity)
            .returning(CLAIM_CODES.c.code)
        )
        async with self.engine.begin() as conn:
            if (await conn.execute(stmt)).first() is None:
                return False
            await conn.execute(_admit(identity, "claim", now))
        return True

    async def admit(self, identity: str, how: str, now: datetime) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(_admit(identity, how, now))


def _admit(identity: str, how: str, now: datetime) -> Insert:
    return (
        pg_insert(ADMITTED)
        .values(identity=identity, how=how, admitted_at=now)
        .on_conflict_do_nothing(index_elements=["identity"])
    )
