"""What a button press does: approve or reject a held change, or pick a category."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta

from bot import metrics
from bot.events import Reply
from bot.tools.registry import ToolContext, ToolError
from bot.tools.runner import ToolRunner
from bot.vault_access import in_vault, is_team
from storage.db.chat_tables import Approval
from storage.db.conversations import HistoryItem
from storage.errors import StaleEdit, StorageError

log = logging.getLogger(__name__)

STUCK_AFTER = timedelta(minutes=10)  # an approval still "running" after this was cut short
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
        scoped = await self._decider(ctx, approval)
        if scoped is None:
            return [Reply("Only the person who asked for this change can approve it.")]
        ctx = scoped
        if approval.status == "running":
            started = approval.decided_at or approval.created_at
            if ctx.now - started < STUCK_AFTER:
                return [Reply(f"Still applying: {approval.summary}.")]
            # The process that ran it died midway: end it, saying what the vault holds.
            outcome = (
                f"{approval.summary} was interrupted; look at the note to see whether it "
                "changed, and ask again if not."
            )
            await records.settle_approval(approval.id, "failed", outcome)
            return [Reply(outcome, replace=True)]
        if approval.status != "pending":
            return []  # decided already: a second press changes and says nothing
        if ctx.now >= approval.expires_at:
            if await records.claim_approval(approval.id, "expired", ctx.now):
                metrics.approval_decided("expired")
                return [Reply(f"Expired: {approval.summary}. Nothing changed.", replace=True)]
            return []
        if not await records.claim_approval(approval.id, "running", ctx.now):
            return []  # a second press of the same button
        head = await asyncio.to_thread(ctx.store.vault.head)
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
        except Exception as exc:
            # Disk full, a git or database error: the approval still ends, and the
            # person learns whether the vault took the change.
            log.exception("approved %s %s failed", approval.tool, approval.id)
            return [await self._failed(ctx, approval, head, exc)]
        await records.settle_approval(approval.id, "approved", result.text)
        metrics.approval_decided("approved")
        await records.add_messages(
            approval.conversation_key,
            ctx.person.id,
            [HistoryItem("assistant", f"(Approved) {result.text}", None, None)],
            ctx.now,
        )
        return [Reply(f"Approved: {approval.summary}.\n{result.text}", replace=True)]

    @staticmethod
    async def _decider(ctx: ToolContext, approval: Approval) -> ToolContext | None:
        """`ctx` on the approval's vault if this person may decide it: who asked, in a
        vault they may still use, or any member of the team vault it is for."""
        scoped = await in_vault(ctx, approval.vault_id)
        if scoped is None:
            return None
        if approval.user_id == ctx.person.id or is_team(scoped):
            return scoped
        return None

    async def _failed(
        self, ctx: ToolContext, approval: Approval, head: str | None, exc: Exception
    ) -> Reply:
        now = await asyncio.to_thread(ctx.store.vault.head)
        reason = str(exc) or type(exc).__name__
        if now != head:
            outcome = (
                f"{approval.summary}: the vault took the change (commit {str(now)[:8]}), "
                f"but finishing it failed ({reason}); search may miss it until the next sync."
            )
            status = "approved"
        else:
            outcome = f"{approval.summary} failed: {reason}. Nothing changed."
            status = "failed"
        try:
            await ctx.records.settle_approval(approval.id, status, outcome)
        except Exception:
            log.exception("could not record the end of approval %s", approval.id)
        metrics.approval_decided(status)
        return Reply(outcome, replace=True)

    async def reject(self, ctx: ToolContext, approval_id: str) -> list[Reply]:
        records = ctx.records
        approval = await records.get_approval(approval_id)
        if approval is None:
            return [Reply("I don't know that approval; nothing changed.")]
        if await self._decider(ctx, approval) is None:
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
        scoped = await in_vault(ctx, action.vault_id)
        if action.user_id != ctx.person.id or scoped is None:
            return [Reply("Only the person who captured this can file it.")]
        ctx = scoped
        choices = list(action.payload["choices"])
        if not index.isdigit() or int(index) >= len(choices):
            return [Reply("That choice is unknown; nothing changed.")]
        if ctx.now - action.created_at > timedelta(seconds=ctx.settings.approval_ttl_seconds):
            return [Reply("Those category buttons have expired; nothing changed.", replace=True)]
        if await ctx.records.use_button_action(action_id, ctx.now) is None:
            return []
        category = choices[int(index)]
        path = str(action.payload["path"])
        # Old buttons carry no hash; they still move only what is at the path now.
        ctx = replace(ctx, expected_hash=action.payload.get("content_hash"))
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
