"""A category button under a note that landed in the inbox: the note is filed there at
once (the press is the decision), by the person who captured it, while the buttons
are fresh and the note is as it was."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.events import Reply
from bot.tools import ToolContext, ToolError, ToolRunner
from storage import StaleEdit, StorageError


class Filing(ButtonHandler):
    """The `file` buttons (one per category)."""

    actions = ("file",)

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        action_id, _, index = value.partition(".")
        stored, ctx = await pressed(
            ctx,
            action_id,
            "file",
            members=False,
            unknown="That choice is unknown; nothing changed.",
            not_yours="Only the person who captured this can file it.",
        )
        choices = list(stored.payload["choices"])
        if not index.isdigit() or int(index) >= len(choices):
            return [Reply("That choice is unknown; nothing changed.")]
        if ctx.now - stored.created_at > timedelta(seconds=ctx.settings.approval_ttl_seconds):
            return [Reply("Those category buttons have expired; nothing changed.", replace=True)]
        if await ctx.records.buttons.use(action_id, ctx.now) is None:
            return []
        category = choices[int(index)]
        path = str(stored.payload["path"])
        # Old buttons carry no hash; they still move only what is at the path now.
        ctx = replace(ctx, expected_hash=stored.payload.get("content_hash"))
        try:
            result = await self.runner.run_now(
                ctx, "move_entry", {"path": path, "category": category}, "category button"
            )
        except StaleEdit:
            return [
                Reply(f"{path} changed since those buttons were made; nothing moved.", replace=True)
            ]
        except (ToolError, StorageError) as exc:
            return [Reply(f"Could not file {path}: {exc}", replace=True)]
        return [Reply(f"Filed in {category}: {result.entry_path}.", replace=True)]
