"""Email addresses a person asked to verify, each with the code that proves it.

`/settings email ada@example.org` keeps one code per person (asking again replaces
it); the mail that carries the code, from that address, turns it into the person's
`email` identity. The bot sends nothing: the person proves the address by mailing
from it, so a typo or someone else's address costs nobody a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Column, ForeignKey, Integer, and_, delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.admission import new_code, normal_code
from storage.db.chat_tables import EVENTS, IDENTITIES, _utc_column, table_of
from storage.db.people import new_identity

EMAIL = "email"  # the platform of a verified address among a person's identities
EMAIL_CODE_LENGTH = 8  # ~40 bits, alive for an hour, and only from a passing sender


class EmailCode(SQLModel, table=True):
    """The one address a person is verifying now, and its code."""

    __tablename__ = "email_codes"

    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    )
    address: str = Field(index=True)
    code: str
    expires_at: datetime = _utc_column()


EMAIL_CODES = table_of(EmailCode)


@dataclass(frozen=True, slots=True)
class PendingAddress:
    user_id: int
    address: str
    code: str
    expires_at: datetime


def normal_address(address: str) -> str:
    """An address as it is kept and compared: mail systems treat case as one."""
    return address.strip().lower()


class EmailCodes:
    """Codes of addresses being verified, and turning one into an identity."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def ask(self, user_id: int, address: str, expires_at: datetime) -> str:
        """A new code for `user_id` to verify `address` (any earlier one is forgotten)."""
        code = new_code(EMAIL_CODE_LENGTH)
        row = {
            "user_id": user_id,
            "address": normal_address(address),
            "code": code,
            "expires_at": expires_at,
        }
        stmt = insert(EMAIL_CODES).values(row)
        stmt = stmt.on_conflict_do_update(index_elements=["user_id"], set_=row)
        async with self.engine.begin() as conn:
            await conn.execute(stmt)
        return code

    async def pending(self, address: str, now: datetime) -> list[PendingAddress]:
        """The live codes that wait for a mail from `address`."""
        c = EMAIL_CODES.c
        stmt = select(EMAIL_CODES).where(
            and_(c.address == normal_address(address), c.expires_at > now)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [PendingAddress(r.user_id, r.address, r.code, r.expires_at) for r in rows]

    async def pending_of(self, user_id: int, now: datetime) -> PendingAddress | None:
        c = EMAIL_CODES.c
        stmt = select(EMAIL_CODES).where(and_(c.user_id == user_id, c.expires_at > now))
        async with self.engine.connect() as conn:
            r = (await conn.execute(stmt)).first()
        return None if r is None else PendingAddress(r.user_id, r.address, r.code, r.expires_at)

    async def confirm(
        self, user_id: int, address: str, code: str, name: str, now: datetime, *, event_id: str
    ) -> bool:
        """Make `address` the person's when `code` is their live code for it: the code
        is used up, the identity added and the mail recorded as a finished `email`
        event `event_id`, in one transaction (two processes reading the same mail
        confirm once; read again after a crash, the mail is no note). False: the code
        is wrong, used or expired, or the address is someone else's already."""
        c = EMAIL_CODES.c
        address = normal_address(address)
        async with self.engine.begin() as conn:
            used = (
                await conn.execute(
                    delete(EMAIL_CODES)
                    .where(
                        and_(
                            c.user_id == user_id,
                            c.address == address,
                            c.code == normal_code(code),
                            c.expires_at > now,
                        )
                    )
                    .returning(c.user_id)
                )
            ).first()
            if used is None:
                return False
            added = (
                await conn.execute(
                    new_identity(user_id, EMAIL, address, name, None, now).returning(
                        IDENTITIES.c.user_id
                    )
                )
            ).first()
            if added is None:
                return False
            await conn.execute(
                insert(EVENTS)
                .values(
                    platform=EMAIL,
                    event_id=event_id,
                    kind="message",
                    user_key=f"{EMAIL}:{address}",
                    chat_id=address,
                    text=f"verified {address}",
                    status="done",
                    received_at=now,
                    processed_at=now,
                )
                .on_conflict_do_nothing()
            )
        return True

    async def forget(self, user_id: int, address: str) -> bool:
        """The person's address is theirs no more (and a code for it is dropped)."""
        address = normal_address(address)
        i = IDENTITIES.c
        async with self.engine.begin() as conn:
            await conn.execute(
                delete(EMAIL_CODES).where(
                    and_(EMAIL_CODES.c.user_id == user_id, EMAIL_CODES.c.address == address)
                )
            )
            gone = await conn.execute(
                delete(IDENTITIES)
                .where(
                    and_(i.user_id == user_id, i.platform == EMAIL, i.platform_user_id == address)
                )
                .returning(i.user_id)
            )
            return gone.first() is not None
