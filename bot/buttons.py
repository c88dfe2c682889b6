"""What a button press does: approve or reject a held change, or pick a category."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot import metrics
from bot.events import Reply
from bot.toolrunner import ToolRunner
from bot.tools.registry import ToolContext, ToolError
from storage.errors import StaleEdit, StorageError
from storage.records import HistoryItem

log = logging.getLogger(__name__)

ButtonHandler = Callable[[ToolContext, str], Awaitable[list[Reply]]]


class Buttons:
    """Dispatch presses by action. Other parts (the digest) add handlers to `handlers`."""

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner
        self.handlers: dict[str, ButtonHandler] = {
            "approve": self.approve,
            "reject": self.reject,
            "file": self.file,
        }

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        handler = self.handlers.get(action)
        if handler is None:
            return [Reply("That button is not one of mine.")]
        return await handler(ctx, value)

    async def approve(self, ctx: ToolContext, approval_id: str) -> list[Reply]:
        records = ctx.records
        approval = await records.get_approval(approval_id)
        if approval is None:
            return [Reply("I don't know that approval; nothing changed.")]
        if approval.user_id != ctx.person.id:
            return [Reply("Only the person who asked for this change can approve it.")]
        if approval.status != "pending":
            return []
        if ctx.now >= approval.expires_at:
            if await records.claim_approval(approval.id, "expired", ctx.now):
                metrics.approval_decided("expired")
                return [Reply(f"Expired: {approval.summary}. Nothing changed.", replace=True)]
            return []
        if not await records.claim_approval(approval.id, "running", ctx.now):
            return []  # a second press of the same button
        try:
            result = await self.runner.run_approved(ctx, approval)
        except StaleEdit:
            outcome = (
                f"{approval.summary}: the note changed after the preview, "
                "so nothing changed. Ask again."
            )
            await records.settle_approval(approval.id, "failed", outcome)
            metrics.approval_decided("failed")
            return [Reply(outcome, replace=True)]
        except (ToolError, StorageError) as exc:
            outcome = f"{approval.summary} failed: {exc}. Nothing changed."
            await records.settle_approval(approval.id, "failed", outcome)
            metrics.approval_decided("failed")
            return [Reply(outcome, replace=True)]
        await records.settle_approval(approval.id, "approved", result.text)
        metrics.approval_decided("approved")
        await records.add_messages(
            approval.conversation_key,
            ctx.person.id,
            [HistoryItem("assistant", f"(Approved) {result.text}", None, None)],
            ctx.now,
        )
        return [Reply(f"Approved: {approval.summary}.\n{result.text}", replace=True)]

    async def reject(self, ctx: ToolContext, approval_id: str) -> list[Reply]:
        records = ctx.records
        approval = await records.get_approval(approval_id)
        if approval is None:
            return [Reply("I don't know that approval; nothing changed.")]
        if approval.user_id != ctx.person.id:
            return [Reply("Only the person who asked for this change can reject it.")]
        if not await records.claim_approval(approval.id, "rejected", ctx.now):
            return []
        await records.settle_approval(approval.id, "rejected", "rejected by the user")
        metrics.approval_decided("rejected")
        # The rejection joins the conversation, so the user's next words (the reason)
        # reach the model with it.
        await records.add_messages(
            approval.conversation_key,
            ctx.person.id,
            [
                HistoryItem(
                    "assistant",
                    f"(The user rejected: {approval.summary}. Nothing was changed. "
                    "If they say why, adjust the proposal.)",
                    None,
                    None,
                )
            ],
            ctx.now,
        )
        return [
            Reply(
                f"Rejected: {approval.summary}. Nothing changed. Tell me why if you like.",
                replace=True,
            )
        ]

    async def file(self, ctx: ToolContext, value: str) -> list[Reply]:
        """A category picked for a capture that landed in the inbox: move it, no approval."""
        action_id, _, index = value.partition(".")
        action = await ctx.records.get_button_action(action_id)
        if action is None or action.kind != "file":
            return [Reply("That choice is unknown; nothing changed.")]
        if action.user_id != ctx.person.id:
            return [Reply("Only the person who captured this can file it.")]
        choices = list(action.payload["choices"])
        if not index.isdigit() or int(index) >= len(choices):
            return [Reply("That choice is unknown; nothing changed.")]
        if await ctx.records.use_button_action(action_id, ctx.now) is None:
            return []
        category = choices[int(index)]
        path = str(action.payload["path"])
        try:
            result = await self.runner.run_now(
                ctx, "move_entry", {"path": path, "category": category}, "category button"
            )
        except (ToolError, StorageError) as exc:
            return [Reply(f"Could not file {path}: {exc}", replace=True)]
        return [Reply(f"Filed in {category}: {result.entry_path}.", replace=True)]
