"""The records the engine keeps, one repository per kind over one database engine
(basic-memory's repositories): `Records` holds them, built once by the composition
root and handed to whoever reads or writes them (`records.events.arrive(...)`)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import SQLModel

from storage.db.admission import Admission
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
from storage.db.digest_messages import DigestMessages
from storage.db.email_codes import EmailCodes
from storage.db.enrichments import Enrichments
from storage.db.events import EventRecords
from storage.db.mcp_tokens import McpTokens
from storage.db.people import PeopleRecords
from storage.db.resurfaced import Resurfaced
from storage.db.send_ledger import SendLedger
from storage.db.skipped import SkippedItems
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


def _not_counted(where: str) -> None:
    pass


class Records:
    """Every repository of the records, over one engine; every method of theirs is one
    short transaction. `counted` is told the `where` of each skipped item (the
    composition root passes the `brainbot_errors` counter)."""

    def __init__(
        self, engine: AsyncEngine, *, counted: Callable[[str], None] = _not_counted
    ) -> None:
        self.engine = engine
        # What the conversation engine keeps of each message and turn.
        self.events = EventRecords(engine)
        self.people = PeopleRecords(engine)
        self.admission = Admission(engine)  # who may use a closed install
        self.email_codes = EmailCodes(engine)  # addresses being verified for mail in
        self.mcp_tokens = McpTokens(engine)
        self.conversations = ConversationRecords(engine)
        self.tool_log = ToolCallRecords(engine)
        self.approvals = ApprovalRecords(engine)
        self.buttons = ButtonActions(engine)
        # What happens after the reply and on a schedule.
        self.enrichments = Enrichments(engine)  # links, photos, documents still to read
        self.digest_messages = DigestMessages(engine)  # digests as shown, for their buttons
        self.resurfaced = Resurfaced(engine)  # older notes a digest brought back
        self.send_ledger = SendLedger(engine)  # digests and reminders sent, each once
        self.skipped = SkippedItems(engine, counted)  # bad notes and jobs, for doctor

    async def create_schema(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(SQLModel.metadata.create_all, tables=_ENGINE_TABLES)
