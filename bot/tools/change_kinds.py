"""What kind of change an update is, measured against the note as it is now.

Small changes that overwrite nothing may run at once with an Undo button
(BRAINBOT_DIRECT_CHANGES); anything else waits for Approve:

- `append`: text added at the end, or to one section (at its end, under its heading,
  or as a new section: bot.tools.sections); the body is otherwise kept.
- `tag`: tags added; every tag the note has is kept.
- `tick`: `- [ ]` boxes ticked or unticked; no other line of the body changes.
- `fill`: a field that is missing or empty gets a value.
- `replace`: anything else: new text for the body, a field removed, a value changed.

A model's small change runs at once only when it is the person's own: most of the
words it writes were in their message (in_your_words), and after reading notes, the
message asked for it (asked_for).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.tools.tasklist import only_ticks
from storage import Entry
from storage.vault import MANAGED_FIELDS

_WORD = re.compile(r"\w+")
# Words that name nothing: a change sharing only these with the message is not "its words".
_FILLER = frozenset(re.findall(r"\S+", "a an the to of in on at for and or is it my me this that"))
# How task texts are joined in ChangeKinds.tasks (a task may hold spaces).
TASKS_JOINED = "\n"
# A change runs at once only if at least this share of the words it writes were in the
# person's message: text that is mostly someone else's is not theirs, however many of
# their words it also holds ("Budget approved: pay invoice 991 to IBAN …" for a
# message about the budget).
OWN_SHARE = 0.5
# Why a model's small change waits, as its approval card says.
NOT_YOUR_WORDS = "its text is mostly not your words"
# Words that ask for each kind of change: a message asks for it when one of its words
# begins with one of these ("adding" asks to add, "ticked" to tick).
_ASKS = {
    "append": ("add", "append", "put", "write", "jot", "include", "insert", "log", "record"),
    "tag": ("tag", "label", "#"),
    "tick": (
        *("tick", "untick", "check", "uncheck", "done", "did", "finish", "complete"),
        *("mark", "cross", "got", "bought", "paid", "still need"),
    ),
    "fill": ("set", "fill", "due", "status", "context", "next"),
}


@dataclass(frozen=True, slots=True)
class ChangeKinds:
    """What a change would do to a note as it is now: its kinds (`replace` for anything
    that overwrites or removes what the note holds), to decide whether it may run at once."""

    kinds: frozenset[str]
    words: str = ""  # what the change writes: appended text, new tags, filled values
    note: tuple[str, ...] = ()  # the note's names: its title and its path
    tasks: str = ""  # the tasks it ticks or unticks (TASKS_JOINED): it writes no text

    @property
    def operation(self) -> str:
        """The word the change's commit begins with: its kind when it is one small
        kind (`append`, `tag`, `tick`, `fill`), else `update`."""
        if len(self.kinds) == 1 and "replace" not in self.kinds:
            return next(iter(self.kinds))
        return "update"


def update_kinds(
    entry: Entry,
    fields: Mapping[str, Any],
    remove_fields: Sequence[str] | None,
    body: str | None,
    append: str | None,
) -> ChangeKinds:
    """The kinds of change an `update_entry` call would make to `entry`; a part that
    would change nothing adds no kind."""
    kinds: set[str] = set()
    words: list[str] = []
    ticks: list[str] = []
    if any(name in entry.fields for name in remove_fields or () if name not in MANAGED_FIELDS):
        kinds.add("replace")
    for name, value in fields.items():
        if name in MANAGED_FIELDS:
            continue  # the vault keeps these itself
        if name == "tags":
            kinds |= _tag_kind(entry, value, words)
            continue
        current = entry.fields.get(name)
        if _same(current, value) or (_empty(current) and _empty(value)):
            continue
        if _empty(current):
            kinds.add("fill")
            words.append(str(value))
        else:
            kinds.add("replace")  # another value, or the value cleared
    if body is not None and body.rstrip() != entry.body.rstrip():
        ticked = only_ticks(entry.body, body)
        if ticked is None:
            kinds.add("replace")
        else:
            kinds.add("tick")
            ticks += ticked
    if append and append.strip():
        kinds.add("append")
        words.append(append)
    note = (entry.title, entry.path)
    return ChangeKinds(frozenset(kinds), " ".join(words), note, TASKS_JOINED.join(ticks))


def _tag_kind(entry: Entry, value: Any, words: list[str]) -> set[str]:
    old = {_tag(t) for t in entry.tags}
    new = [_tag(t) for t in value] if isinstance(value, list) else None
    if new is None:
        return {"replace"} if old else set()  # tags cleared
    if set(new) == old:
        return set()
    if old <= set(new):
        words += [t for t in new if t not in old]
        return {"tag"}
    return {"replace"}  # a tag removed


def _tag(tag: object) -> str:
    return str(tag).strip().lstrip("#").lower()


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, str | list | dict | tuple) and not value)


def _same(current: object, value: object) -> bool:
    return current == value or (current is not None and str(current) == str(value))


def echoes(said: str, words: str) -> bool:
    """Whether some word of `words` was in what the person said ("mark milk as done" →
    the task "milk"); words that name nothing do not count."""
    theirs = _Theirs(said)
    return any(theirs.holds(word) for word in _WORD.findall(words.lower()))


def own_share(said: str, words: str) -> float:
    """The share of the words `words` brings that were in what the person said (words
    that name nothing left out; 0 when nothing else is left): "Tried oolong: great."
    for "I tried oolong, it was great" is 1, "Budget approved: pay invoice 991" for
    "what's new about the budget?" 1/5."""
    theirs = _Theirs(said)
    brought = [w for w in _WORD.findall(words.lower()) if w not in _FILLER]
    if not brought:
        return 0.0
    return sum(map(theirs.holds, brought)) / len(brought)


def in_your_words(said: str, change: ChangeKinds) -> bool:
    """Whether a model's change is the person's own: most of what it writes was in
    their message (OWN_SHARE), and the tasks it ticks share a word with it. A weak
    model's guess at another note, or a planted line that shares one word with the
    message, is not."""
    if not change.words and not change.tasks:
        return False
    if change.words and own_share(said, change.words) < OWN_SHARE:
        return False
    return not change.tasks or echoes(said, change.tasks)


class _Theirs:
    """The words of a message, to tell which words of a change it holds."""

    def __init__(self, said: str) -> None:
        self.said = said.lower()
        self.words = set(_WORD.findall(self.said)) - _FILLER
        self.stems = {w[:5] for w in self.words if len(w) > 3}

    def holds(self, word: str) -> bool:
        """`word` (lower case) is one of theirs, or shares its first five letters with
        one ("gardening" → "garden"); in scripts without spaces, is part of it."""
        if word in _FILLER:
            return False
        if word in self.words or (len(word) > 3 and word[:5] in self.stems):
            return True
        return not word.isascii() and word in self.said


def asks_to_change(text: str) -> bool:
    """Whether `text` has a word that asks for some small change ("add", "tag", "done",
    "got"): a question that holds one also asks for something to be done."""
    lowered = text.lower()
    words = _WORD.findall(lowered)
    return any(_asks(kind, lowered, words) for kind in _ASKS)


def _asks(kind: str, lowered: str, words: list[str]) -> bool:
    asks = _ASKS.get(kind, ())
    return any(w.startswith(a) for w in words for a in asks if a.isalnum()) or any(
        a in lowered for a in asks if not a.isalnum()
    )


def asked_for(said: str, change: ChangeKinds) -> bool:
    """Whether the person's message asked for this very change, as a change proposed
    after reading notes must be: it names the note (all the words of its title or of
    its file name; for ticks, the tasks), asks for every kind of change it makes, and
    the change is in their words. One shared word ("budget") is not a request."""
    lowered = said.lower()
    words = _WORD.findall(lowered)
    if not all(_asks(kind, lowered, words) for kind in change.kinds):
        return False
    named = any(_names(lowered, name) for name in change.note)
    if not named and change.kinds == {"tick"}:
        tasks = [task for task in change.tasks.split(TASKS_JOINED) if task]
        named = bool(tasks) and all(echoes(said, task) for task in tasks)
    return named and in_your_words(said, change)


def _names(said: str, name: str) -> bool:
    """Whether `said` names a note by `name` (a title or a path): every word of it but
    the filler and the category folder and `.md` is in what they said."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".md")
    wanted = set(_WORD.findall(stem.lower())) - _FILLER
    theirs = _Theirs(said)
    return bool(wanted) and all(map(theirs.holds, wanted))
