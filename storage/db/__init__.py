"""The database room: the Postgres connection (`connection`, with an embedded server when
no URL is given), the tables (`index_tables` for the derived index, `chat_tables` for
what the conversation engine keeps), and the records the engine reads and writes,
one repository per kind (`records` holds them all).

This door lets out the connection, the repositories and the rows they hand back."""

from storage.db.admission import Admission, normal_code
from storage.db.button_actions import short_id
from storage.db.chat_tables import (
    WEEKLY_DEFAULT,
    WEEKLY_OFF,
    Approval,
    ButtonAction,
    Identity,
    InboundEvent,
    ToolCallLog,
)
from storage.db.connection import Database
from storage.db.conversations import HistoryItem, Summary, history_rows
from storage.db.digest_messages import DigestMessage, DigestMessages, new_message_id
from storage.db.email_codes import EMAIL, EmailCodes, PendingAddress, normal_address
from storage.db.embedded_pg import server_crashes
from storage.db.enrichments import Enrichment, Enrichments
from storage.db.events import Arrival, Awaited, NewEvent, StoredFile
from storage.db.liveness import ProcessLiveness
from storage.db.mcp_tokens import McpTokens, TokenInfo
from storage.db.people import Person
from storage.db.pg_upgrade import Upgraded, UpgradeFailed, upgrade
from storage.db.records import Records
from storage.db.resurfaced import NEVER_BELOW, Resurfaced
from storage.db.send_ledger import DigestKey, ReminderKey, Send, SendLedger
from storage.db.skipped import NO_VAULT, Skipped, SkippedItems
from storage.db.vector_side import SEMANTIC_SEARCH_FIX, semantic_search_off

__all__ = [
    "EMAIL",
    "NEVER_BELOW",
    "NO_VAULT",
    "SEMANTIC_SEARCH_FIX",
    "WEEKLY_DEFAULT",
    "WEEKLY_OFF",
    "Admission",
    "Approval",
    "Arrival",
    "Awaited",
    "ButtonAction",
    "Database",
    "DigestKey",
    "DigestMessage",
    "DigestMessages",
    "EmailCodes",
    "Enrichment",
    "Enrichments",
    "HistoryItem",
    "Identity",
    "InboundEvent",
    "McpTokens",
    "NewEvent",
    "PendingAddress",
    "Person",
    "ProcessLiveness",
    "Records",
    "ReminderKey",
    "Resurfaced",
    "Send",
    "SendLedger",
    "Skipped",
    "SkippedItems",
    "StoredFile",
    "Summary",
    "TokenInfo",
    "ToolCallLog",
    "UpgradeFailed",
    "Upgraded",
    "history_rows",
    "new_message_id",
    "normal_address",
    "normal_code",
    "semantic_search_off",
    "server_crashes",
    "short_id",
    "upgrade",
]
