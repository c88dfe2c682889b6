"""Telling a question from a thought without a model, and the words worth searching for."""

from __future__ import annotations

import re

QUESTION_WORDS = frozenset(
    {"what", "where", "when", "who", "which", "how", "did", "find", "show", "search"}
)
# "do" starts a to-do as often as a question: only "do I / do we ..." asks something.
_DO_QUESTION = re.compile(r"^(?:do|does)\s+(?:i|we|you|they|he|she|it|my|our)\b", re.IGNORECASE)
# Openings of a thought that merely start with a question word.
_THOUGHT_OPENINGS = re.compile(r"^(?:what if|how about)\b", re.IGNORECASE)
_WORD = re.compile(r"[\w'\u2019-]+")
_FILLER = frozenset(
    re.findall(
        r"\S+",
        """a about all an and any anything are did do does find for from have how i i've in
        is it me my note notes of on or said say search show something that the there to
        was we were what when where which who with write written wrote you your""",
    )
)
LEAVE_WORDS = frozenset({"exit", "quit", "bye", "goodbye", "/quit", "/exit", ":q", "logout"})


def is_leave_word(text: str) -> bool:
    """ "exit", "quit", "/quit"... : a person trying to end the chat, not a thought."""
    return text.strip().strip(".!").lower() in LEAVE_WORDS


def is_question(text: str) -> bool:
    """A line ending in `?`, or opening with what/where/when/who/which/how/did/find/show
    (or "do I/we..."); "what if ..." and "how about ..." are ideas, not questions."""
    text = text.strip()
    if _THOUGHT_OPENINGS.match(text) and not text.endswith("?"):
        return False
    if text.endswith("?"):
        return True
    first = _WORD.match(text)
    return bool(first and first.group().lower() in QUESTION_WORDS) or bool(_DO_QUESTION.match(text))


def search_words(question: str) -> str:
    """The words of a question worth searching for: "what did I write about tomatoes?"
    → "tomatoes"; the whole question when nothing else is left."""
    words = [w for w in _WORD.findall(question) if w.lower() not in _FILLER]
    return " ".join(words) or question.strip(" ?")
