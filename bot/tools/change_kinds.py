"""What kind of change an update is, measured against the note as it is now.

Small changes that overwrite nothing may run at once with an Undo button
(BRAINBOT_DIRECT_CHANGES); anything else waits for Approve:

- `append`: text added at the end, or to one section (at its end, under its heading,
  or as a new section: bot.tools.sections); the body is otherwise kept.
- `tag`: tags added; every tag the note has is kept.
- `tick`: `- [ ]` boxes ticked or unticked; no other line of the body changes.
- `fill`: a field that is missing or empty gets a value.
- `replace`: anything else: new text for the body, a field removed, a value changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.tools.tasklist import only_ticks
from storage.entry import Entry
from storage.vault.schema import MANAGED_FIELDS

_WORD = re.compile(r"\w+")
# Words that name nothing: a change sharing only these with the message is not "its words".
_FILLER = frozenset(re.findall(r"\S+", "a an the to of in on at for and or is it my me this that"))
# How task texts are joined in ChangeKinds.words (a task may hold spaces).
TASKS_JOINED = "\n"
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
    words: str = ""  # what the change brings: appended text, new tags, task texts
    note: tuple[str, ...] = ()  # the note's names: its title and its path

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
            words += ticked
    if append and append.strip():
        kinds.add("append")
        words.append(append)
    return ChangeKinds(frozenset(kinds), " ".join(words), (entry.title, entry.path))


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
    """Whether a change uses the person's own words: some word it brings was in what
    they said ("add eggs to my list" → "eggs"). A model's change that shares none (a
    weak model's guess at another note) is not run at once."""
    said = said.lower()
    said_words = set(_WORD.findall(said)) - _FILLER
    stems = {w[:5] for w in said_words if len(w) > 3}
    for word in _WORD.findall(words.lower()):
        if word in said_words or (len(word) > 3 and word[:5] in stems):
            return True
        if not word.isascii() and word in said:  # scripts without spaces between words
            return True
    return False


def asked_for(said: str, change: ChangeKinds) -> bool:
    """Whether the person's message asked for this very change, as a change proposed
    after reading notes must be: it names the note (all the words of its title or of
    its file name; for ticks, the tasks), asks for every kind of change it makes, and
    the change brings their words. One shared word ("budget") is not a request."""
    lowered = said.lower()
    words = _WORD.findall(lowered)
    for kind in change.kinds:
        asks = _ASKS.get(kind, ())
        if not any(w.startswith(a) for w in words for a in asks if a.isalnum()) and not any(
            a in lowered for a in asks if not a.isalnum()
        ):
            return False
    named = any(_names(lowered, name) for name in change.note)
    if not named and change.kinds == {"tick"}:
        named = all(echoes(said, task) for task in change.words.split(TASKS_JOINED) if task)
    return named and echoes(said, change.words)


def _names(said: str, name: str) -> bool:
    """Whether `said` names a note by `name` (a title or a path): every word of it but
    the filler and the category folder and `.md` is in what they said."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".md")
    wanted = set(_WORD.findall(stem.lower())) - _FILLER
    said_words = set(_WORD.findall(said))
    stems = {w[:5] for w in said_words if len(w) > 3}
    return bool(wanted) and all(
        w in said_words or (len(w) > 3 and w[:5] in stems) or (not w.isascii() and w in said)
        for w in wanted
    )
