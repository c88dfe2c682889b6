"""Approve and Reject: a held change runs (against what its preview showed) or is
dropped, for the person who asked for it (any member, for a team note), once."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from bot import metrics
from bot.buttons.dispatch import ButtonHandler
from bot.events import Reply
from bot.tools import ToolContext, ToolError, ToolRunner
from storage import StaleEdit, StorageError
from storage.db import Approval, Awaited, HistoryItem

log = logging.getLogger(__name__)

STUCK_AFTER = timedelta(minutes=10)  # an approval still "running" after this was cut short
# After Reject the person is asked why: the next message within this time answers.
REASON_WAIT = timedelta(minutes=10)
REASON_ASKED = "rejected by the user"  # a rejection's outcome while its reason is awaited


class Approvals(ButtonHandler):
    """The `approve` and `reject` buttons of an approval card."""

    actions = ("approve", "reject")

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        if action == "approve":
            return await self.approve(ctx, value)
        return await self.reject(ctx, value)

    async def approve(self, ctx: ToolContext, approval_id: str) -> list[Reply]:
        records = ctx.records
        approval = await records.approvals.get(approval_id)
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
            await records.approvals.settle(approval.id, "failed", outcome)
            return [Reply(outcome, replace=True)]
        if approval.status != "pending":
            return []  # decided already: a second press changes and says nothing
        if ctx.now >= approval.expires_at:
            if await records.approvals.claim(approval.id, "expired", ctx.now):
                metrics.approval_decided("expired")
                return [Reply(f"Expired: {approval.summary}. Nothing changed.", replace=True)]
            return []
        if not await records.approvals.claim(approval.id, "running", ctx.now):
            return []  # a second press of the same button
        head = await asyncio.to_thread(ctx.store.vault.head)
        try:
            result = await self.runner.run_approved(ctx, approval)
        except StaleEdit:
            outcome = (
                f"{approval.summary}: the note changed after the preview, "
                "so nothing changed. Ask again."
            )
            await records.approvals.settle(approval.id, "failed", outcome)
            metrics.approval_decided("failed")
            return [Reply(outcome, replace=True)]
        except (ToolError, StorageError) as exc:
            outcome = f"{approval.summary} failed: {exc}. Nothing changed."
            await records.approvals.settle(approval.id, "failed", outcome)
            metrics.approval_decided("failed")
            return [Reply(outcome, replace=True)]
        except Exception as exc:
            # Disk full, a git or database error: the approval still ends, and the
            # person learns whether the vault took the change.
            log.exception("approved %s %s failed", approval.tool, approval.id)
            return [await self._failed(ctx, approval, head, exc)]
        await records.approvals.settle(approval.id, "approved", result.text)
        metrics.approval_decided("approved")
        await records.conversations.add(
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
        scoped = await ctx.in_vault(approval.vault_id)
        if scoped is None:
            return None
        if approval.user_id == ctx.person.id or scoped.is_team:
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
            await ctx.records.approvals.settle(approval.id, status, outcome)
        except Exception:
            log.exception("could not record the end of approval %s", approval.id)
        metrics.approval_decided(status)
        return Reply(outcome, replace=True)

    async def reject(self, ctx: ToolContext, approval_id: str) -> list[Reply]:
        records = ctx.records
        approval = await records.approvals.get(approval_id)
        if approval is None:
            return [Reply("I don't know that approval; nothing changed.")]
        if await self._decider(ctx, approval) is None:
            return [Reply("Only the person who asked for this change can reject it.")]
        if not await records.approvals.claim(approval.id, "rejected", ctx.now):
            return []
        await records.approvals.settle(approval.id, "rejected", REASON_ASKED)
        metrics.approval_decided("rejected")
        # The rejection joins the conversation, so the user's next words (the reason)
        # reach the model with it.
        await records.conversations.add(
            approval.conversation_key,
            ctx.person.id,
            [
                HistoryItem(
                    "assistant",
                    f"(The user rejected: {approval.summary}. Nothing was changed.)",
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

    @staticmethod
    def awaited(conversation_key: str, now: datetime) -> Awaited:
        """What tells whether a message in `conversation_key` may answer "Tell me why"
        (the engine asks it as the message arrives: storage.db.EventRecords.arrive)."""
        return Awaited(conversation_key, REASON_ASKED, now - REASON_WAIT)

    async def after_reject(
        self, ctx: ToolContext, text: str, *, awaited: bool = True
    ) -> list[Reply] | None:
        """The message right after a Reject in this chat (within REASON_WAIT) answers
        "Tell me why": plain text becomes the rejection's reason, is acknowledged and is
        not filed; a command ends the question and runs. None: the message goes on its
        usual way (at once when no rejection waits for a reason: `awaited` False)."""
        if not awaited:
            return None
        command = text.startswith("/")
        words = " ".join(text.split())
        outcome = f"{REASON_ASKED} (no reason given)" if command else f"{REASON_ASKED}: {words}"
        rejected = await ctx.records.approvals.answer_rejections(
            ctx.conversation.key, ctx.person.id, ctx.now - REASON_WAIT, REASON_ASKED, outcome
        )
        if command or not rejected:
            return None
        answer = (
            f'Thanks, noted why you rejected "{rejected[0].summary}". I did not file it as a '
            "note (to keep it, send /capture TEXT); tell me what to do instead, if anything."
        )
        await ctx.records.conversations.add(
            ctx.conversation.key,
            ctx.person.id,
            [
                HistoryItem("user", text, None, None),
                HistoryItem("assistant", answer, None, None),
            ],
            ctx.now,
        )
        return [Reply(answer)]
