"""Which vaults exist, whose each one is, and who belongs to a team vault.

A vault is one git repository of notes and its slice of the index (every index
table carries `vault_id`). A person's vault belongs to one user; a team vault is
shared by its members. Vault 1 is the configured vault (`BRAINBOT_VAULT_DIR`,
by default `<data>/vault`): an install from before private vaults keeps it, and
it belongs to the install's first person, its owner. Every other vault lives
under `<data>/vaults/<name>/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Column, DateTime, Integer, Text
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import table_of

OWNER_VAULT = 1  # the configured vault, its owner's
OWNER_VAULT_NAME = "vault"  # its name (given by migration 7)


def _utc_column(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


class VaultRow(SQLModel, table=True):
    """One vault: a person's own or a team's."""

    __tablename__ = "vaults"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    kind: str = Field(sa_column=Column(Text, nullable=False))  # person | team
    # The person a person's vault belongs to (None: vault 1 before its owner spoke).
    user_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True, unique=True))
    created_at: datetime = _utc_column()


class VaultMember(SQLModel, table=True):
    """A person who may read and change a team vault: they wrote in its chat, and the
    chat still had them when last asked (`checked_at`: their last message there, or
    the platform's last answer that they are a member; see bot.people.teams)."""

    __tablename__ = "vault_members"

    vault_id: int = Field(primary_key=True)
    user_id: int = Field(primary_key=True, index=True)
    joined_at: datetime = _utc_column()
    checked_at: datetime = _utc_column()


VAULTS = table_of(VaultRow)
VAULT_MEMBERS = table_of(VaultMember)


@dataclass(frozen=True, slots=True)
class VaultInfo:
    """One vault: `kind` is "person" (its `user_id`'s) or "team" (its members')."""

    id: int
    name: str
    kind: str
    user_id: int | None

    @property
    def is_team(self) -> bool:
        return self.kind == "team"


def vault_info(row: Any) -> VaultInfo:
    m = row._mapping
    return VaultInfo(m["id"], m["name"], m["kind"], m["user_id"])
