"""The tools the model (and the command router) can call, one typed function each,
registered here by name (REGISTRY). Also what runs them (the runner: validation,
approval, Undo) and what they share: the context of an event, how notes are named, the
notes a turn read and how an answer names them as its sources."""

from bot.tools.carried_text import Reading
from bot.tools.change_kinds import asks_to_change
from bot.tools.changes import delete_entry, tick_tasks, undo, update_entry
from bot.tools.context import (
    ArrivedFiles,
    Proposal,
    ReadNote,
    ToolContext,
    ToolError,
    ToolResult,
)
from bot.tools.daily import log_line
from bot.tools.digest import generate_digest
from bot.tools.forward_links import list_forward_links
from bot.tools.note_names import (
    category_named,
    clean_reference,
    notes_named,
    split_leading_reference,
    title_from,
)
from bot.tools.notes import UNSURE, capture, get_entry, list_backlinks, list_entries, search_entries
from bot.tools.registry import ToolSpec, registered, tool
from bot.tools.relocation import last_filed, move_entry, rename_entry
from bot.tools.reminders import list_reminders
from bot.tools.replace import search_replace
from bot.tools.resurfacing import get_random_note
from bot.tools.runner import (
    UNDO_ACTION,
    UNDO_KIND,
    Outcome,
    ToolRunner,
    approval_tools,
    undo_button,
)
from bot.tools.settings import update_settings
from bot.tools.sources import (
    MAX_SOURCES,
    OPEN_ACTION,
    OPEN_KIND,
    notes_read,
    source_buttons,
    source_line,
    why,
    with_sources,
)
from bot.tools.team_notes import in_team

# The tools every vault has, in the order the model is offered them; a plugin's are
# added when it loads (bot.custom_tools), a vault's own are the runner's `custom`.
REGISTRY = registered(
    capture,
    list_entries,
    get_entry,
    search_entries,
    list_backlinks,
    update_entry,
    tick_tasks,
    move_entry,
    rename_entry,
    delete_entry,
    undo,
    generate_digest,
    list_forward_links,
    list_reminders,
    search_replace,
    get_random_note,
    update_settings,
)

__all__ = [
    "MAX_SOURCES",
    "OPEN_ACTION",
    "OPEN_KIND",
    "REGISTRY",
    "UNDO_ACTION",
    "UNDO_KIND",
    "UNSURE",
    "ArrivedFiles",
    "Outcome",
    "Proposal",
    "ReadNote",
    "Reading",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolRunner",
    "ToolSpec",
    "approval_tools",
    "asks_to_change",
    "category_named",
    "clean_reference",
    "delete_entry",
    "in_team",
    "last_filed",
    "log_line",
    "move_entry",
    "notes_named",
    "notes_read",
    "rename_entry",
    "search_entries",
    "source_buttons",
    "source_line",
    "split_leading_reference",
    "title_from",
    "tool",
    "undo",
    "undo_button",
    "why",
    "with_sources",
]
