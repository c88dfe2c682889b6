"""The tools the model (and the command router) can call, one typed function each;
importing this registers them. Also what runs them (the runner: validation, approval,
Undo) and what they share: the context of an event, how notes are named, the notes
a turn read and how an answer names them as its sources."""

from bot.tools import changes, digest, links, notes, reminders, replace, resurfacing, settings
from bot.tools.change_kinds import asks_to_change
from bot.tools.context import (
    ArrivedFiles,
    Proposal,
    ReadNote,
    ToolContext,
    ToolError,
    ToolResult,
)
from bot.tools.daily import log_line
from bot.tools.names import (
    category_named,
    clean_reference,
    notes_named,
    split_leading_reference,
    title_from,
)
from bot.tools.notes import UNSURE
from bot.tools.reading import Reading
from bot.tools.registry import REGISTRY, ToolSpec, tool
from bot.tools.runner import (
    UNDO_ACTION,
    UNDO_KIND,
    Outcome,
    ToolRunner,
    approval_tools,
    last_filed,
    undo_button,
)
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
    "changes",
    "clean_reference",
    "digest",
    "in_team",
    "last_filed",
    "links",
    "log_line",
    "notes",
    "notes_named",
    "notes_read",
    "reminders",
    "replace",
    "resurfacing",
    "settings",
    "source_buttons",
    "source_line",
    "split_leading_reference",
    "title_from",
    "tool",
    "undo_button",
    "why",
    "with_sources",
]
