"""Answering without a model: the command router, commands on one note, plain text
filed by keywords, and telling a question or a request from a thought."""

from bot.commands.capture import classify
from bot.commands.intent import (
    asks_for_digest,
    is_leave_word,
    is_question,
    kind_of,
    only_asks,
    search_words,
)
from bot.commands.notes import NoteChoice, NoteCommands
from bot.commands.router import Router

__all__ = [
    "NoteChoice",
    "NoteCommands",
    "Router",
    "asks_for_digest",
    "classify",
    "is_leave_word",
    "is_question",
    "kind_of",
    "only_asks",
    "search_words",
]
