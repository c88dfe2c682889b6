"""What a thought's own markup says, read without a model: "next: …" is the next
action, `#tags` are tags, `[[links]]` read as their names in a title. Dates ("by
Friday", "due 1 May") are read by the capture itself (bot.tools.dates), from the body."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.tools import title_from
from storage.text.dates import When
from storage.text.wikilinks import unlinked

# "Website redesign - next: email Tom", "Roof. Next step: call the roofer".
_NEXT = re.compile(
    r"(?:\s*[-\u2013\u2014|;,.]\s*|\s+|^)next(?:[ _-]?(?:action|step))?\s*:\s*", re.IGNORECASE
)
# Obsidian's inline tag: `#` after a space (not `C#`, not a URL's `#part`), a letter
# first (`#1` is an issue number), then letters, digits, `_`, `-`, `/`.
_TAG = re.compile(r"(?<![\w#&/])#([^\W\d][\w/-]*)")
_TRAILING_TAGS = re.compile(r"(?:[ \t]*" + _TAG.pattern + r")+[ \t]*$", re.MULTILINE)
_SPACES = re.compile(r"[ \t]+")


@dataclass(frozen=True, slots=True)
class Structure:
    """A thought's markup: the words its title comes from ("" when it starts with
    "next:"), its next action and tags."""

    head: str
    next_action: str | None
    tags: tuple[str, ...]


def read_structure(text: str) -> Structure:
    """The markup in `text` (a thought without its category hint)."""
    tags = tuple(dict.fromkeys(tag.lower() for tag in _TAG.findall(text)))
    # Tags closing a line are markup ("Buy milk #errand"); one inside a sentence is
    # also a word ("read #book on the flight").
    plain = _TAG.sub(r"\1", _TRAILING_TAGS.sub("", text))
    parts = _NEXT.split(plain, maxsplit=1)
    if len(parts) == 1:
        return Structure(_tidy(plain), None, tags)
    head, tail = parts
    return Structure(_tidy(head), _tidy(tail.split("\n", 1)[0]) or None, tags)


def title_of(structure: Structure, when_of: Callable[[str], When]) -> tuple[str, str | None]:
    """The title and next action of a thought, each without its date words ("email Tom
    the new mockups by Friday" is due Friday; its action is "email Tom the new mockups"),
    its dates read by `when_of` (the event's reading, bot.tools.ToolContext.when)."""
    action = structure.next_action
    if action is not None:
        action = when_of(action).rest or action
    head = structure.head or action or ""
    when = when_of(head)
    rest = when.rest.strip() if when.found else ""
    # "remind me to call mom tomorrow at 9": a task called "Call mom".
    head = rest[:1].upper() + rest[1:] if rest else head
    return title_from(unlinked(head)), action


@dataclass(frozen=True, slots=True)
class Titled:
    """What a thought's markup gives its note: a title and next action, each without
    its date words, and its tags."""

    title: str
    next_action: str | None
    tags: tuple[str, ...]


def titled(text: str, when_of: Callable[[str], When]) -> Titled:
    """The title, next action and tags of a thought (without its category hint), read
    from its markup (`read_structure`) and titled (`title_of`) in one go."""
    structure = read_structure(text)
    title, action = title_of(structure, when_of)
    return Titled(title, action, structure.tags)


def _tidy(text: str) -> str:
    """`text` without the spaces and separators markup left at its ends (its lines kept:
    the title is made from the first)."""
    return _SPACES.sub(" ", text).strip(" \t\n-\u2013\u2014|;,")
