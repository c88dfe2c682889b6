"""Keeping a thought the model did not file: in the inbox, in the person's words.

Why at once and not behind a "Save as note" button: the person has moved on by the
time they read the reply, and on a phone an unpressed button is a lost thought. Tried
with a 270M model, most thoughts got an answer in words (often the model's previous
answer repeated) and no call: with a button, 7 of 8 thoughts were not kept. An inbox
note too many costs one press of a category button or /delete; a lost thought cannot
be found again.
"""

from __future__ import annotations

import json
import re

from bot.commands.router import title_from
from bot.events import Reply
from bot.tools.registry import ToolContext
from bot.tools.runner import ToolRunner
from bot.turn.loop import Turn

_WORD = re.compile(r"\w+")


def carries_the_thought(turn: Turn, text: str) -> bool:
    """Whether what the turn wrote answers the message: a note was filed, or a change
    waiting for Approve touches something the person named ("tea is a project now":
    Move ideas/tea.md to projects/; "I tried oolong": the tea note gets that line). A
    weak model's change to a note the message never mentions does not count."""
    if "capture" in turn.written:
        return True
    said = " ".join(f"{r.text} {r.preview or ''}" for r in turn.replies)
    return bool((_stems(text) - _CARD_WORDS) & _stems(said))


# The words every card and result says, which name nothing the person said.
_CARD_WORDS = frozenset(
    w[:5]
    for w in [
        "update",
        "updated",
        "move",
        "moved",
        "delete",
        "deleted",
        "undo",
        "needs",
        "your",
        "approval",
        "this",
        "that",
        "with",
        "note",
        "notes",
        "saved",
        "from",
        "into",
    ]
)


def _stems(text: str) -> set[str]:
    """Words of four letters or more, cut to five ("projects" and "project" meet)."""
    return {w.lower()[:5] for w in _WORD.findall(text) if len(w) > 3}


class Keeper:
    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def inbox(self, ctx: ToolContext, text: str, notice: str | None) -> list[Reply]:
        """File `text` unchanged in the inbox, with the category buttons."""
        outcome = await self.runner.call(
            ctx,
            "capture",
            {
                "category": "inbox",
                "title": title_from(text),
                "body": text,
                "confidence": 0.0,
                "tags": [],
                "fields": [],
            },
        )
        if outcome.result is None:
            error = json.loads(outcome.content).get("error", "unknown error")
            return [Reply(f"I could not save that: {error}. Please send it again.")]
        when = outcome.result.data.get("reminder")
        return [
            Reply(
                " ".join(filter(None, [f"Saved to {outcome.result.entry_path}.", when])),
                buttons=outcome.result.buttons,
                notice=notice,
            )
        ]
