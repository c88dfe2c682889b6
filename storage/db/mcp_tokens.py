"""Bearer tokens that let an MCP client (Claude Desktop, an IDE, another assistant) act
as one person.

A token is shown once, when it is made; only its SHA-256 is kept, so a copy of the
database does not hand out access. Tokens are long random strings, so an unsalted
hash is enough (nothing to guess from a dictionary). A revoked token stays listed,
marked, so the person can see what they revoked and when.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.button_actions import short_id
from storage.db.chat_tables import _utc_column, table_of

TOKEN_PREFIX = "bbmcp_"  # says what a leaked string is, for secret scanners and people


class McpToken(SQLModel, table=True):
    """One client's access, as one person."""

    __tablename__ = "mcp_tokens"

    id: str = Field(primary_key=True)  # short, shown by --list, given to --revoke
    user_id: int = Field(foreign_key="users.id", index=True)
    label: str = ""
    token_hash: str = Field(unique=True)
    created_at: datetime = _utc_column()
    last_used_at: datetime | None = _utc_column(nullable=True)
    revoked_at: datetime | None = _utc_column(nullable=True)


MCP_TOKENS = table_of(McpToken)


@dataclass(frozen=True, slots=True)
class TokenInfo:
    id: str
    user_id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.strip().encode()).hexdigest()


class McpTokens:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, user_id: int, label: str, now: datetime) -> tuple[TokenInfo, str]:
        """A new token for `user_id`: its record and the token itself (not kept)."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(short_id(8), user_id, label, now, None, None)
        async with self.engine.begin() as conn:
            await conn.execute(
                insert(MCP_TOKENS).values(
                    id=info.id,
                    user_id=user_id,
                    label=label,
                    token_hash=token_hash(token),
                    created_at=now,
                )
            )
        return info, token

    async def bearer(self, authorization: str, now: datetime) -> TokenInfo | None:
        """The live token an HTTP `Authorization: Bearer …` header carries, else None
        (MCP over HTTP and the capture API take the same tokens)."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return await self.find(token.strip(), now)

    async def find(self, token: str, now: datetime) -> TokenInfo | None:
        """The live token `token` (now marked used), else None."""
        stmt = (
            update(MCP_TOKENS)
            .where(
                and_(
                    MCP_TOKENS.c.token_hash == token_hash(token), MCP_TOKENS.c.revoked_at.is_(None)
                )
            )
            .values(last_used_at=now)
            .returning(*MCP_TOKENS.c)
        )
        async with self.engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else _info(row)

    async def list(self, user_id: int | None = None) -> list[TokenInfo]:
        stmt = select(MCP_TOKENS).order_by(MCP_TOKENS.c.created_at)
        if user_id is not None:
            stmt = stmt.where(MCP_TOKENS.c.user_id == user_id)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [_info(row) for row in rows]

    async def revoke(self, token_id: str, now: datetime) -> bool:
        """Revoke a live token by its id; False when there is no such live token."""
        stmt = (
            update(MCP_TOKENS)
            .where(and_(MCP_TOKENS.c.id == token_id, MCP_TOKENS.c.revoked_at.is_(None)))
            .values(revoked_at=now)
            .returning(MCP_TOKENS.c.id)
        )
        async with self.engine.begin() as conn:
            return (await conn.execute(stmt)).first() is not None


def _info(row: Row[Any]) -> TokenInfo:
    m = row._mapping
    return TokenInfo(
        m["id"], m["user_id"], m["label"], m["created_at"], m["last_used_at"], m["revoked_at"]
    )
