"""Tables the conversation engine keeps: people, inbound events, conversation
history, pending approvals, button actions and the tool-call log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime, Index, LargeBinary, Table, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _utc_column(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


# A person's weekly_day when they turned the weekly review off (every day's digest is
# the daily one); 0 … 6 name its day.
WEEKLY_OFF = 7
WEEKLY_DEFAULT = 6  # Sunday


class User(SQLModel, table=True):
    """A person; several platform identities may point to one user."""

    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    name: str = ""
    timezone: str | None = None
    digest_enabled: bool = True
    digest_time: str | None = None  # "HH:MM" local; None = the deployment default
    weekly_day: int = WEEKLY_DEFAULT  # 0 = Monday ... 6 = Sunday; WEEKLY_OFF: no weekly review
    created_at: datetime = _utc_column()


class Identity(SQLModel, table=True):
    """One platform account of a user, and where to reach them there."""

    __tablename__ = "identities"

    platform: str = Field(primary_key=True)
    platform_user_id: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    display_name: str = ""
    home_chat_id: str | None = None
    created_at: datetime = _utc_column()


class LinkCode(SQLModel, table=True):
    __tablename__ = "link_codes"

    code: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="users.id")
    expires_at: datetime = _utc_column()


class InboundEvent(SQLModel, table=True):
    """Every event from a platform, recorded before it is processed (the dedupe key)."""

    __tablename__ = "inbound_events"

    platform: str = Field(primary_key=True)
    event_id: str = Field(primary_key=True)
    kind: str  # message | button
    user_key: str
    chat_id: str
    thread_id: str | None = None
    text: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    status: str = "received"  # received | done | failed
    owner: int = 0  # liveness token of the process handling it (storage.db.liveness)
    received_at: datetime = _utc_column()
    processed_at: datetime | None = _utc_column(nullable=True)


class InboundFile(SQLModel, table=True):
    """A file that came with an event (a voice note, a photo), kept until the event is
    handled, so a crash in between loses nothing."""

    __tablename__ = "inbound_files"

    platform: str = Field(primary_key=True)
    event_id: str = Field(primary_key=True)
    position: int = Field(primary_key=True)
    kind: str
    file_name: str
    mime_type: str | None = None
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Message(SQLModel, table=True):
    """Conversation history: what the user said, what the model answered, tool traffic."""

    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_conversation", "conversation_key", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    conversation_key: str
    user_id: int | None = None
    role: str  # user | assistant | tool | note
    content: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    tool_calls: list[dict[str, Any]] | None = Field(default=None, sa_column=Column(JSONB))
    tool_call_id: str | None = None
    created_at: datetime = _utc_column()


class ConversationSummary(SQLModel, table=True):
    """What the model made of one person's older turns in one conversation: the turns
    up to `through_id` (a messages.id) that the history no longer sends."""

    __tablename__ = "conversation_summaries"

    conversation_key: str = Field(primary_key=True)
    user_id: int = Field(primary_key=True)  # the person's; 0 for nobody known
    summary: str = Field(sa_column=Column(Text, nullable=False))
    through_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    updated_at: datetime = _utc_column()


class Approval(SQLModel, table=True):
    """A risky tool call waiting for its requester's Approve or Reject."""

    __tablename__ = "approvals"

    id: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="users.id")
    conversation_key: str
    tool: str
    arguments: dict[str, Any] = Field(sa_column=Column(JSONB, nullable=False))
    summary: str
    preview: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    content_hash: str | None = None
    vault_id: int = 1  # the vault the change is for (storage.db.vault_tables)
    status: str = "pending"  # pending | running | approved | rejected | expired | failed
    outcome: str | None = None
    created_at: datetime = _utc_column()
    expires_at: datetime = _utc_column()
    decided_at: datetime | None = _utc_column(nullable=True)


class ButtonAction(SQLModel, table=True):
    """What a non-approval button does (pick a category, mark done...), by short id."""

    __tablename__ = "button_actions"

    id: str = Field(primary_key=True)
    user_id: int = Field(foreign_key="users.id")
    kind: str
    payload: dict[str, Any] = Field(sa_column=Column(JSONB, nullable=False))
    vault_id: int = 1  # the vault the action changes
    created_at: datetime = _utc_column()
    used_at: datetime | None = _utc_column(nullable=True)


class ToolCallLog(SQLModel, table=True):
    __tablename__ = "tool_calls"
    __table_args__ = (Index("ix_tool_calls_conversation", "conversation_key", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int | None = None
    conversation_key: str
    tool: str
    arguments: dict[str, Any] = Field(sa_column=Column(JSONB, nullable=False))
    outcome: str  # ok | error | approval | rejected
    detail: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    entry_path: str | None = None  # the entry the call wrote, for "that one" corrections
    event_key: str = Field(default="", index=True)  # "platform:event_id" that caused the call
    duration_ms: float = 0.0
    created_at: datetime = _utc_column()


def table_of(model: type[SQLModel]) -> Table:
    """The SQLAlchemy Table behind a SQLModel class, for typed core queries (`T.c.name`)."""
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


USERS = table_of(User)
IDENTITIES = table_of(Identity)
LINK_CODES = table_of(LinkCode)
EVENTS = table_of(InboundEvent)
FILES = table_of(InboundFile)
MESSAGES = table_of(Message)
SUMMARIES = table_of(ConversationSummary)
APPROVALS = table_of(Approval)
BUTTON_ACTIONS = table_of(ButtonAction)
TOOL_CALLS = table_of(ToolCallLog)
