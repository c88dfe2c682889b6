"""Answering without a model: the commands (one record each, COMMANDS, from which
/help, a platform's menu and the dispatch are made), commands on one note, plain text
filed by keywords, and telling a question or a request from a thought."""

from bot.commands.capture import capture_arguments, classify
from bot.commands.intent import (
    Intent,
    Kind,
    asks_for_digest,
    intent_of,
    is_leave_word,
    is_question,
    kind_of,
    only_asks,
    search_words,
)
from bot.commands.notes import NoteChoice, NoteCommands
from bot.commands.router import (
    COMMANDS,
    GREETING,
    Router,
    as_command,
    command_names,
    menu,
)

__all__ = [
    "COMMANDS",
    "GREETING",
    "Intent",
    "Kind",
    "NoteChoice",
    "NoteCommands",
    "Router",
    "as_command",
    "asks_for_digest",
    "capture_arguments",
    "classify",
    "command_names",
    "intent_of",
    "is_leave_word",
    "is_question",
    "kind_of",
    "menu",
    "only_asks",
    "search_words",
]
