"""Run one tool call, from the model or from a command: validate the arguments,
turn a risky call into a pending approval, execute the rest, and log it.

A small change (appending, tagging, ticking a task: BRAINBOT_DIRECT_CHANGES) runs at
once, and its result carries an Undo button that reverts exactly its commit (see
bot.buttons.undo)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ValidationError

from bot import metrics
from bot.events import Button, Reply, storable_json
from bot.tools.carried_text import AFTER_READING, ANSWERING, Reading
from bot.tools.change_kinds import NOT_YOUR_WORDS, ChangeKinds, asked_for, in_your_words
from bot.tools.registry import Proposal, ToolContext, ToolError, ToolResult, ToolSpec
from storage import StorageError
from storage.db import Approval, short_id

log = logging.getLogger(__name__)

APPROVAL_SETTING = "BRAINBOT_APPROVAL_TOOLS"
UNDO_ACTION = "undo_change"  # Button.action of an Undo button
UNDO_KIND = "undo"  # ButtonAction.kind behind it: the commit, the note, the conversation


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of one call: the JSON for the model, and what the user may see."""

    name: str
    content: str  # JSON text sent back to the model as the tool message
    ok: bool
    result: ToolResult | None = None
    approval: Reply | None = None  # the approval card, when the call waits for a press
    writes: bool = False  # the tool is not flagged read-only: its success acted on something
    captures: bool = False  # the tool files a thought (ToolSpec.captures)


def _error(name: str, message: str) -> Outcome:
    return Outcome(name, json.dumps({"error": message}), ok=False)


def _doubted(heard: Reading | None) -> str | None:
    """Why a model's change that the settings let run at once still waits: it was
    proposed after reading notes, or while answering a question; None: it runs."""
    if heard is None:
        return None
    if heard.read:
        return AFTER_READING
    return ANSWERING if heard.question else None


def _small_change_waits(said: str, change: ChangeKinds, heard: Reading) -> str | None:
    """Why a model's small change waits, or None: it runs at once with Undo. It must
    pass on nothing from the model's context, not answer a question, and be the
    person's own words (after reading notes: what they asked for)."""
    carried = heard.carried(change.words)  # ticks write no text: they pass nothing on
    if carried is not None:
        return carried
    if heard.question:
        return ANSWERING
    if heard.read and not asked_for(said, change):
        return AFTER_READING
    return None if in_your_words(said, change) else NOT_YOUR_WORDS


def _without_path(args: BaseModel) -> dict[str, Any]:
    """A call's arguments but the note it names: a path or title read in a search is how
    the model names the note, not text it passes on."""
    return {k: v for k, v in args.model_dump().items() if k != "path"}


def approval_buttons(approval_id: str) -> tuple[Button, ...]:
    return (
        Button("Approve", "approve", approval_id, "primary"),
        Button("Reject", "reject", approval_id, "danger"),
    )


def approvable(tools: Mapping[str, ToolSpec]) -> tuple[str, ...]:
    """The tools that can wait for Approve: those that ask for it and show a preview."""
    return tuple(name for name, spec in tools.items() if spec.needs_approval and spec.previewer)


def approval_tools(names: Sequence[str] | None, tools: Mapping[str, ToolSpec]) -> tuple[str, ...]:
    """BRAINBOT_APPROVAL_TOOLS as names of `tools` (None: every one that can wait). A name may
    be a tool's or its command word (`delete` for delete_entry); a tool that follows
    another's approval (`approval_follows`) waits wherever that one does. ValueError
    names what is not a tool that can wait, and the names that are."""
    choices = approvable(tools)
    if names is None:
        return choices
    words = {name.split("_")[0]: name for name in choices}
    found = tuple(dict.fromkeys(words.get(n.lower(), n.lower()) for n in names))
    unknown = [name for name in found if name not in choices]
    if unknown:
        raise ValueError(
            f"{APPROVAL_SETTING} names unknown tools {unknown}; valid names: "
            f"{', '.join(choices)} (or {', '.join(words)})"
        )
    followers = [name for name in choices if tools[name].approval_follows in found]
    return (*found, *(name for name in followers if name not in found))


class ToolRunner:
    """Runs the registered tools (the runner is handed `bot.tools.REGISTRY`, so it needs
    no tool module at import time)."""

    def __init__(
        self,
        tools: Mapping[str, ToolSpec],
        approval: Sequence[str] | None,
        approval_ttl_seconds: float,
        direct_changes: tuple[str, ...] = (),
        custom: Callable[[ToolContext], Mapping[str, ToolSpec]] | None = None,
    ) -> None:
        self.tools = tools
        self.custom = custom  # the tools a vault declares itself (bot.custom_tools)
        # BRAINBOT_APPROVAL_TOOLS, checked again: the settings may not have come through
        # the command line (ValueError says what is wrong).
        self.approval_tools = approval_tools(approval, tools)
        self.approvable = approvable(tools)
        self.approval_ttl = timedelta(seconds=approval_ttl_seconds)
        self.direct_changes = frozenset(direct_changes)

    def custom_tools(self, ctx: ToolContext) -> Mapping[str, ToolSpec]:
        """The tools `ctx`'s vault declares, besides the registered ones (read once per
        event: the turn, its mending and every call ask)."""
        if self.custom is None:
            return {}
        key = (ctx.store.vault_id, ctx.vault.name if ctx.vault is not None else "")
        found = ctx.declared.get(key)
        if found is None:
            found = ctx.declared[key] = self.custom(ctx)
        return found

    def tools_for(self, ctx: ToolContext) -> Mapping[str, ToolSpec]:
        """Every tool a call in `ctx` may use; a registered one wins over a declared one."""
        custom = self.custom_tools(ctx)
        return {**custom, **self.tools} if custom else self.tools

    def offered(self, ctx: ToolContext) -> tuple[Mapping[str, ToolSpec], Mapping[str, ToolSpec]]:
        """What a model's turn in `ctx` is offered, asked once for the turn: the tools
        its vault declares (`custom_tools`) and every tool its calls may use
        (`tools_for`)."""
        return self.custom_tools(ctx), self.tools_for(ctx)

    async def call(
        self,
        ctx: ToolContext,
        name: str,
        arguments: str | dict[str, Any],
        *,
        said: str | None = None,
        reading: Reading | None = None,
    ) -> Outcome:
        """Run (or hold for approval) one call; never raises for what the caller sent.
        `said` is the person's message when a model chose the call: a small change then
        runs at once only if it is mostly their words, and not while answering a
        question. A command's call is their own. `reading` is what reached the model
        in its turn: nothing that carries it runs at once, and after reading notes
        only what the person asked for does."""
        started = time.perf_counter()
        if isinstance(arguments, dict):  # from a model or an MCP client: what they say enters
            arguments = storable_json(arguments)
        tools = self.tools_for(ctx)
        spec = tools.get(name)
        if spec is None:
            return _error(name, f"unknown tool {name!r}; known: {sorted(tools)}")
        try:
            if isinstance(arguments, str):
                args = spec.arguments.model_validate_json(arguments or "{}")
            else:
                args = spec.arguments.model_validate(arguments)
        except ValidationError as exc:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            await self._log(ctx, spec, arguments, "error", f"invalid arguments: {detail}", started)
            return _error(name, f"invalid arguments: {detail}")
        try:
            why = await self._waits(ctx, spec, args, said, reading)
            if why is not None:
                outcome = await self._hold(ctx, spec, args, why)
                await self._log(ctx, spec, args.model_dump(), "approval", outcome.content, started)
                return outcome
            result = await spec.run(ctx, args)
        except (ToolError, StorageError) as exc:
            await self._log(ctx, spec, args.model_dump(), "error", str(exc), started)
            return _error(name, str(exc))
        await self._log(ctx, spec, args.model_dump(), "ok", "", started, result.entry_path)
        if result.commit is not None:
            result = await self.with_undo(ctx, result)
        content = json.dumps(result.data, default=str)
        return Outcome(
            name,
            content,
            ok=True,
            result=result,
            writes=not spec.read_only,
            captures=spec.captures,
        )

    async def run_now(
        self, ctx: ToolContext, name: str, arguments: dict[str, Any], detail: str = ""
    ) -> ToolResult:
        """Execute a call the user already decided on (an approval, a button); raises
        ToolError or StorageError when it cannot be done."""
        spec = self.tools_for(ctx).get(name)
        if spec is None:
            raise ToolError(f"the tool {name} is no longer declared in this vault")
        args = spec.arguments.model_validate(arguments)
        started = time.perf_counter()
        try:
            result = await spec.run(ctx, args)
        except (ToolError, StorageError) as exc:
            await self._log(ctx, spec, arguments, "error", str(exc), started)
            raise
        await self._log(ctx, spec, arguments, "ok", detail, started, result.entry_path)
        return result

    async def run_approved(self, ctx: ToolContext, approval: Approval) -> ToolResult:
        """Execute a stored call after its Approve press, against the previewed content."""
        ctx = replace(ctx, expected_hash=approval.content_hash)
        return await self.run_now(ctx, approval.tool, approval.arguments, "approved")

    async def _waits(
        self,
        ctx: ToolContext,
        spec: ToolSpec,
        args: BaseModel,
        said: str | None,
        reading: Reading | None,
    ) -> str | None:
        """Why the call waits for Approve ("" for the usual reasons), or None: it runs.
        A model's call (`said` given) may have been proposed by text in its context: it
        never passes on that text at once, a change made answering a question waits,
        and a small change runs at once only in the person's own words (after reading
        notes, only when they asked for it)."""
        heard = (reading or Reading.of(said)) if said is not None else None
        # A vault's HTTP tool or a plugin's may reach out: what it is sent must not be
        # what was read. This package's tools keep notes where they are.
        ours = getattr(spec.executor, "__module__", "").startswith(f"{__package__}.")
        if spec.read_only and ours:
            return None  # the note tools that only read: nothing leaves, nothing changes
        if spec.name not in self.approvable:
            # A vault's own tool, or a plugin's without a preview: its declaration (a
            # flag, or a rule on the call) says (the setting BRAINBOT_APPROVAL_TOOLS
            # names the tools that can wait).
            sent = _without_path(args) if ours else args.model_dump()
            carried = heard.carried(sent) if heard is not None else None
            if carried is not None:
                return carried
            return "" if await spec.waits(ctx, args) else None
        if spec.name not in self.approval_tools or not await spec.waits(ctx, args):
            # The settings let it run, or its declaration says this call needs no
            # Approve (moving the note just filed: a correction).
            return _doubted(heard)
        if spec.classifier is not None:
            change = await spec.classifier(ctx, args)
            if not change.kinds:
                return None  # it would change nothing: the tool says so
            if change.kinds <= self.direct_changes:
                if said is None or heard is None:
                    return None  # a command's change is the person's own
                return _small_change_waits(said, change, heard)
        # It waits in any case; the card says so when it answers a question.
        return ANSWERING if heard is not None and heard.question else ""

    async def with_undo(self, ctx: ToolContext, result: ToolResult) -> ToolResult:
        """`result` with an Undo button pinned to its commit, for the person and the
        vault of this change only."""
        button = await undo_button(ctx, result.commit, result.entry_path, result.text)
        return replace(
            result,
            data={**result.data, "undo": "done at once; the user has an Undo button for it"},
            buttons=(*result.buttons, button),
        )

    async def _hold(self, ctx: ToolContext, spec: ToolSpec, args: Any, why: str) -> Outcome:
        if spec.previewer is not None:
            proposal = await spec.previewer(ctx, args)
        else:  # a plugin tool without a preview: the call itself is what is shown
            shown = json.dumps(args.model_dump(), indent=2, ensure_ascii=False, default=str)
            proposal = Proposal(f"Run {spec.name}", shown, None)
        approval = Approval(
            id=short_id(),
            user_id=ctx.person.id,
            conversation_key=ctx.conversation.key,
            tool=spec.name,
            arguments=proposal.pinned or args.model_dump(),
            summary=proposal.summary,
            preview=proposal.preview,
            content_hash=proposal.content_hash,
            vault_id=ctx.store.vault_id,
            created_at=ctx.now,
            expires_at=ctx.now + self.approval_ttl,
        )
        await ctx.records.approvals.add(approval)
        because = f" ({why})" if why else ""
        card = Reply(
            f"{proposal.summary}? This needs your approval{because}.",
            buttons=approval_buttons(approval.id),
            preview=proposal.preview or None,
        )
        content = json.dumps(
            {
                "status": "awaiting_approval",
                "approval_id": approval.id,
                "summary": proposal.summary,
                **({"why": why} if why else {}),
                "note": "The user sees a preview with Approve and Reject buttons; "
                "nothing changed yet.",
            }
        )
        return Outcome(spec.name, content, ok=True, approval=card, captures=spec.captures)

    async def _log(
        self,
        ctx: ToolContext,
        spec: ToolSpec,
        arguments: Any,
        outcome: str,
        detail: str,
        started: float,
        entry_path: str | None = None,
    ) -> None:
        metrics.tool_called(spec.name, outcome, captures=spec.captures, entry_path=entry_path)
        if not isinstance(arguments, dict):
            arguments = {"raw": str(arguments)[:2000]}
        await ctx.records.tool_log.add(
            [
                {
                    "user_id": ctx.person.id,
                    "conversation_key": ctx.conversation.key,
                    "tool": spec.name,
                    "arguments": json.loads(json.dumps(arguments, default=str)),
                    "outcome": outcome,
                    "detail": detail[:2000],
                    "entry_path": entry_path,
                    "event_key": ctx.event_key,
                    "duration_ms": (time.perf_counter() - started) * 1000,
                    "created_at": ctx.now,
                }
            ]
        )


async def undo_button(
    ctx: ToolContext, commit: str | None, path: str | None, summary: str
) -> Button:
    """An Undo button for `commit` (bot.buttons.undo reverts exactly it), for the person
    and the vault of this change only: a tool's change run at once, a timeline line,
    a Related line, an older note marked done."""
    action_id = await ctx.records.buttons.add(
        ctx.person.id,
        UNDO_KIND,
        {"commit": commit, "path": path, "summary": summary, "conversation": ctx.conversation.key},
        ctx.now,
        vault_id=ctx.store.vault_id,
    )
    return Button("Undo", UNDO_ACTION, action_id)
