"""The records the engine keeps, one repository per kind over one database engine
(basic-memory's repositories): `Records` holds them, built once by the composition
root and handed to whoever reads or writes them (`records.events.arrive(...)`)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import SQLModel

from storage.db.approvals import ApprovalRecords
from storage.db.button_actions import ButtonActions
from storage.db.chat_tables import (
    APPROVALS,
    BUTTON_ACTIONS,
    EVENTS,
    FILES,
    IDENTITIES,
    LINK_CODES,
    MESSAGES,
    TOOL_CALLS,
    USERS,
)
from storage.db.conversations import ConversationRecords
from storage.db.events import EventRecords
from storage.db.people import PeopleRecords
from storage.db.tool_log import ToolCallRecords

_ENGINE_TABLES = [
    USERS,
    IDENTITIES,
    LINK_CODES,
    EVENTS,
    FILES,
    MESSAGES,
    APPROVALS,
    BUTTON_ACTIONS,
    TOOL_CALLS,
]


class Records:
    """Every repository of the engine's records. Every method is one short transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.events = EventRecords(engine)
        self.people = PeopleRecords(engine)
        self.conversations = ConversationRecords(engine)
        self.tool_log = ToolCallRecords(engine)
        self.approvals = ApprovalRecords(engine)
        self.buttons = ButtonActions(engine)

    async def create_schema(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(SQLModel.metadata.create_all, tables=_ENGINE_TABLES)
