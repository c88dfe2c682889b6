"""Task lines of a Markdown note (`- [ ] milk`, `- [x] eggs`): finding the ones a
person names, ticking and unticking them, and telling a tick from other edits."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# `- [ ] text`, `* [x] text`, `1. [X] text`: a list item with a check box.
_TASK = re.compile(r"^(?P<lead>\s*(?:[-*+]|\d+[.)])\s+\[)(?P<mark>[ xX])\](?P<text>.*)$")
_WORD = re.compile(r"\w+")
_LEADING_BOX = re.compile(r"^\s*(?:[-*+]\s*)?\[[ xX]?\]\s*")
LISTED = 10  # tasks named in an error that says which ones there are


class TaskMatchError(ValueError):
    """An item names no task line of the note, or several equally well."""


@dataclass(frozen=True, slots=True)
class Task:
    line: int  # index in body.split("\n")
    text: str
    done: bool


@dataclass(frozen=True, slots=True)
class Ticked:
    """The body after ticking (or unticking), and what that did."""

    body: str
    changed: tuple[str, ...]  # texts of the tasks whose box changed
    already: tuple[str, ...]  # texts of named tasks that were already so


def tasks(body: str) -> list[Task]:
    """Every task line of `body`, in order."""
    found = []
    for number, line in enumerate(body.split("\n")):
        match = _TASK.match(line)
        if match:
            found.append(Task(number, match["text"].strip(), match["mark"] != " "))
    return found


def only_ticks(old: str, new: str) -> list[str] | None:
    """The texts of the tasks ticked or unticked when `old` became `new`, or None when
    anything else changed as well (trailing blank space aside)."""
    old_lines = old.rstrip().replace("\r\n", "\n").split("\n")
    new_lines = new.rstrip().replace("\r\n", "\n").split("\n")
    if len(old_lines) != len(new_lines):
        return None
    toggled = []
    for before, after in zip(old_lines, new_lines, strict=True):
        if before.rstrip() == after.rstrip():
            continue
        a, b = _TASK.match(before), _TASK.match(after)
        if a is None or b is None:
            return None
        same_task = a["lead"] == b["lead"] and a["text"].rstrip() == b["text"].rstrip()
        if not same_task or (a["mark"] == " ") == (b["mark"] == " "):
            return None
        toggled.append(a["text"].strip())
    return toggled


def tick(body: str, items: Sequence[str], done: bool) -> Ticked:
    """`body` with the tasks `items` name ticked (`done`) or unticked. An item names a
    task by its text or some of its words, case aside ("milk", "Oat milk"). Raises
    TaskMatchError when an item names no task, or several and the state does not decide."""
    found = tasks(body)
    if not found:
        raise TaskMatchError("the note has no task lines (like `- [ ] milk`)")
    chosen: dict[int, Task] = {}
    for item in items:
        task = _task_named(found, item, done)
        chosen[task.line] = task
    lines = body.split("\n")
    changed, already = [], []
    for task in sorted(chosen.values(), key=lambda t: t.line):
        if task.done == done:
            already.append(task.text)
            continue
        match = _TASK.match(lines[task.line])
        assert match is not None
        mark = "x" if done else " "
        lines[task.line] = f"{match['lead']}{mark}]{match['text']}"
        changed.append(task.text)
    return Ticked("\n".join(lines), tuple(changed), tuple(already))


def _task_named(found: Sequence[Task], item: str, done: bool) -> Task:
    wanted = _LEADING_BOX.sub("", item).strip().lower()
    if not wanted:
        raise TaskMatchError("an item is empty; name each task by its words")
    exact = [t for t in found if t.text.lower() == wanted]
    candidates = exact or [t for t in found if _names(wanted, t.text.lower())]
    if len(candidates) > 1:
        # "milk" with "- [x] milk chocolate" and "- [ ] oat milk": only one can still change.
        open_ones = [t for t in candidates if t.done != done]
        candidates = open_ones or candidates[:1]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        listed = ", ".join(f'"{t.text}"' for t in candidates[:LISTED])
        raise TaskMatchError(
            f'"{item}" matches several tasks: {listed}; name one by more of its words'
        )
    listed = ", ".join(f'"{t.text}"' for t in found[:LISTED])
    raise TaskMatchError(f'no task matches "{item}"; the tasks are: {listed}')


def _names(wanted: str, text: str) -> bool:
    """Whether `wanted` names the task `text`: a run of its words, or all of its words
    in any order ("tea" names "green tea", not "steak")."""
    if re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", text):
        return True
    words = {_singular(w) for w in _WORD.findall(text)}
    return all(_singular(w) in words for w in _WORD.findall(wanted))


def _singular(word: str) -> str:
    if word.endswith("es") and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and len(word) > 3:
        return word[:-1]
    return word
