"""The Undo button of a change that ran at once (bot.tools.runner offers it).

A press reverts exactly the commit the button was made for, however many changes
came after it, and at once: the press is the decision. Like an approval, only the
person who made the change (or, in a team vault, a member) may press it, and it acts
on the vault the change was made in. A second press does nothing; a later change to
the same lines makes the undo fail and change nothing.
"""

from __future__ import annotations

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.events import Reply
from bot.tools import UNDO_ACTION, UNDO_KIND, ToolContext, ToolError, ToolRunner
from storage import NothingToChange, StorageError, UndoConflict
from storage.db import HistoryItem


class UndoButton(ButtonHandler):
    """The `undo_change` button."""

    actions = (UNDO_ACTION,)

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, scoped = await pressed(
            ctx,
            value,
            UNDO_KIND,
            members=True,
            unknown="I don't know that Undo button; nothing changed.",
            not_yours="Only the person who made this change can undo it.",
        )
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # undone already: a second press changes and says nothing
        summary = str(stored.payload["summary"])
        commit = str(stored.payload["commit"])
        try:
            await self.runner.run_now(scoped, "undo", {"change": commit}, "undo button")
        except UndoConflict as exc:
            return [
                Reply(
                    f"{summary}\nNot undone: a later change to {', '.join(exc.paths)} touched "
                    f"the same lines, so nothing changed. Tell me what to change back.",
                    replace=True,
                )
            ]
        except NothingToChange:
            return [Reply(f"{summary}\nNothing to undo: it was already reverted.", replace=True)]
        except (ToolError, StorageError) as exc:
            return [Reply(f"{summary}\nCould not undo it: {exc}. Nothing changed.", replace=True)]
        # The model hears of it with the next message, like an approval or a rejection.
        await ctx.records.conversations.add(
            str(stored.payload["conversation"]),
            ctx.person.id,
            [
                HistoryItem(
                    "assistant",
                    f"(The user pressed Undo: this change was reverted: {summary})",
                    None,
                    None,
                )
            ],
            ctx.now,
        )
        return [Reply(f"Undone: {summary}", replace=True)]
