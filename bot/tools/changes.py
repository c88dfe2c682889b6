"""Tools that change or remove notes. Each one can wait for the user's approval and
show a preview of the change first; a small change (see bot.tools.change_kinds) may run
at once instead, and its reply carries an Undo button."""

from __future__ import annotations

import asyncio
import re
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from bot.tools.change_kinds import TASKS_JOINED, ChangeKinds, update_kinds
from bot.tools.dates import normalised
from bot.tools.notes import FieldValue, entry_summary, resolve_entry
from bot.tools.registry import Proposal, ToolContext, ToolError, ToolResult, tool
from bot.tools.sections import body_change
from bot.tools.tasklist import TaskMatchError, Ticked, only_ticks, tasks, tick
from storage import Change, Entry

QUOTED = 60  # characters of appended text a reply repeats


def set_values(values: list[FieldValue] | None) -> dict[str, Any]:
    """The fields to set; `tags` given as text ("garden, food") becomes a list of tags."""
    out: dict[str, Any] = {}
    for value in values or []:
        if value.name == "tags" and isinstance(value.value, str):
            tags = (t.lstrip("#") for t in re.split(r"[,\s]+", value.value))
            out["tags"] = [t for t in tags if t]
        else:
            out[value.name] = value.value
    return out


@tool(needs_approval=True, destructive=True, aliases=("update", "update_note", "edit", "edit_note"))
async def update_entry(
    ctx: ToolContext,
    path: str,
    set_fields: list[FieldValue] | None,
    remove_fields: list[str] | None,
    body: str | None,
    append: str | None,
    prepend: str | None = None,
    section: str | None = None,
) -> ToolResult:
    """Change a note: set or remove frontmatter fields, replace its text, or add to it;
    with `section`, only that heading's part. Fields you do not name are kept.

    Args:
        path: the note's path.
        set_fields: fields to set, or null.
        remove_fields: names of fields to remove, or null.
        body: the note's complete new text (with section: that section's), or null.
        append: text to add at the end of the note (or of the section), or null.
        prepend: text to add at the top of the note (or right under the heading), or null.
        section: a heading, e.g. "Tasks" ("Week 1#Tasks" under another), to change only
            what is under it; missing, it is made at the end. Null for the whole note.
    """
    entry = await resolve_entry(ctx, path)
    fields = normalised(ctx, set_values(set_fields))
    text = body_change(entry.body, body, append, prepend, section)
    if not fields and not remove_fields and text.body is None:
        raise ToolError("nothing to change: give set_fields, remove_fields, body or append")
    updated, change = await ctx.store.update_committed(
        entry.path,
        fields=fields or None,
        body=text.body,
        remove_fields=tuple(remove_fields or ()),
        # Added text joins the body as it was read: only onto that body.
        expected_hash=ctx.expected_hash or (entry.content_hash if text.added or section else None),
        author=ctx.author,
        source=dict(ctx.source),
        operation=update_kinds(entry, fields, remove_fields, text.replaced, text.added).operation,
    )
    what = _described(entry, fields, remove_fields, text.replaced, text.added)
    what += f" under {section.strip(' #')}" if section and what else ""
    return ToolResult(
        {"updated": entry_summary(updated)},
        f"Updated {updated.path}{': ' + what if what else ''}.",
        entry_path=updated.path,
        commit=change.commit,
    )


def _described(
    entry: Entry,
    fields: dict[str, Any],
    remove_fields: list[str] | None,
    body: str | None,
    append: str | None,
) -> str:
    """What an update did, in a few words ("added "eggs"; tagged #food")."""
    parts = []
    fields = dict(fields)
    if "tags" in fields:
        tags = [str(t) for t in fields.pop("tags") or ()]
        added = [t for t in tags if t not in entry.tags]
        if not set(entry.tags) <= set(tags):
            parts.append("set tags: " + (", ".join(tags) or "none"))
        elif added:
            parts.append("tagged " + " ".join(f"#{t}" for t in added))
    parts += [
        f"set {name}: {value}" if value not in (None, "") else f"cleared {name}"
        for name, value in fields.items()
    ]
    if remove_fields:
        parts.append("removed " + ", ".join(remove_fields))
    toggled = None if body is None else only_ticks(entry.body, body)
    if body is not None and toggled is None:
        parts.append("new text")
    elif toggled:
        done = {task.text for task in tasks(body or "") if task.done}
        for verb, names in (
            ("ticked", [t for t in toggled if t in done]),
            ("unticked", [t for t in toggled if t not in done]),
        ):
            if names:
                parts.append(f"{verb} {', '.join(names)}")
    if append and append.strip():
        text = " ".join(append.split())
        parts.append(f'added "{text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"}"')
    return "; ".join(parts)


@update_entry.preview
async def _preview_update(ctx: ToolContext, args: BaseModel) -> Proposal:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    fields = normalised(ctx, set_values([FieldValue(**v) for v in a["set_fields"] or []]))
    preview = await asyncio.to_thread(
        ctx.store.vault.preview_update,
        entry.path,
        fields=fields or None,
        body=body_change(entry.body, a["body"], a["append"], a["prepend"], a["section"]).body,
        remove_fields=tuple(a["remove_fields"] or ()),
    )
    # "remind me friday": the day the preview showed, however late Approve comes.
    pinned = None
    if a["set_fields"]:
        pinned = {
            **a,
            "set_fields": [
                {"name": v["name"], "value": _as_text(fields[v["name"]])}
                if v["name"] in ("remind", "due") and v["name"] in fields
                else v
                for v in a["set_fields"]
            ],
        }
    return Proposal(f"Update {entry.path}", preview.diff, preview.content_hash, pinned=pinned)


def _as_text(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date | datetime) else value


@update_entry.change_kinds
async def _update_kinds(ctx: ToolContext, args: BaseModel) -> ChangeKinds:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    fields = normalised(ctx, set_values([FieldValue(**v) for v in a["set_fields"] or []]))
    text = body_change(entry.body, a["body"], a["append"], a["prepend"], a["section"])
    return update_kinds(entry, fields, a["remove_fields"], text.replaced, text.added)


@tool(
    needs_approval=True,
    idempotent=True,
    aliases=("tick", "check_off", "mark_done", "complete_task", "complete_tasks", "toggle_task"),
    # Ticking a task is an update: it waits wherever updates do.
    approval_follows=update_entry.name,
)
async def tick_tasks(ctx: ToolContext, path: str, items: list[str], done: bool) -> ToolResult:
    """Tick or untick task lines (`- [ ] milk`) of a note, e.g. "mark milk and eggs as
    done". Use it instead of rewriting the note's text.

    Args:
        path: the note's path.
        items: the tasks to change, each by its text or a few of its words ("milk").
        done: true to tick them (done), false to untick them.
    """
    entry = await resolve_entry(ctx, path)
    ticked = _ticked(entry, items, done)
    updated, change = await ctx.store.update_committed(
        entry.path,
        body=ticked.body,
        expected_hash=ctx.expected_hash or entry.content_hash,
        author=ctx.author,
        source=dict(ctx.source),
        operation="tick" if done else "untick",
    )
    verb = "Ticked" if done else "Unticked"
    text = f"{verb} {', '.join(ticked.changed)} in {updated.path}."
    if ticked.already:
        text += f" ({', '.join(ticked.already)}: already {'ticked' if done else 'open'})"
    return ToolResult(
        {verb.lower(): list(ticked.changed), "already": list(ticked.already)},
        text,
        entry_path=updated.path,
        commit=change.commit,
    )


def _ticked(entry: Entry, items: list[str], done: bool) -> Ticked:
    if not items:
        raise ToolError("name at least one task in items")
    try:
        ticked = tick(entry.body, items, done)
    except TaskMatchError as exc:
        raise ToolError(f"{entry.path}: {exc}") from exc
    if not ticked.changed:
        state = "ticked" if done else "open (not ticked)"
        raise ToolError(f"{', '.join(ticked.already)}: already {state} in {entry.path}")
    return ticked


@tick_tasks.preview
async def _preview_tick(ctx: ToolContext, args: BaseModel) -> Proposal:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    ticked = _ticked(entry, a["items"], a["done"])
    preview = await asyncio.to_thread(ctx.store.vault.preview_update, entry.path, body=ticked.body)
    verb = "Tick" if a["done"] else "Untick"
    return Proposal(
        f"{verb} {', '.join(ticked.changed)} in {entry.path}", preview.diff, preview.content_hash
    )


@tick_tasks.change_kinds
async def _tick_kinds(ctx: ToolContext, args: BaseModel) -> ChangeKinds:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    note = (entry.title, entry.path)
    return ChangeKinds(frozenset({"tick"}), note=note, tasks=TASKS_JOINED.join(a["items"]))


@tool(
    needs_approval=True,
    destructive=True,
    idempotent=True,
    aliases=("delete", "delete_note", "remove"),
)
async def delete_entry(ctx: ToolContext, path: str) -> ToolResult:
    """Delete a note. Git keeps its history, so it can be undone.

    Args:
        path: the note's path.
    """
    entry = await resolve_entry(ctx, path)
    await ctx.store.delete(
        entry.path, expected_hash=ctx.expected_hash, author=ctx.author, source=dict(ctx.source)
    )
    return ToolResult({"deleted": entry.path}, f"Deleted {entry.path}.")


@delete_entry.preview
async def _preview_delete(ctx: ToolContext, args: BaseModel) -> Proposal:
    entry = await resolve_entry(ctx, args.model_dump()["path"])
    preview = await asyncio.to_thread(ctx.store.vault.preview_delete, entry.path)
    return Proposal(f"Delete {entry.path}", preview.diff, preview.content_hash)


async def _change_to_undo(ctx: ToolContext, change: str | None) -> Change:
    if change and len(change.strip()) == 40:
        # A pinned change (an approval's): that very commit, however old by now.
        return await ctx.store.change(change.strip().lower())
    history = await ctx.store.history(limit=50)
    if not history:
        raise ToolError("there is nothing to undo")
    if not change:
        return history[0]
    for item in history:
        if item.commit.startswith(change.strip().lower()):
            return item
    raise ToolError(
        f"no recent change {change!r}; recent ones: {[c.commit[:8] for c in history[:5]]}"
    )


@tool(needs_approval=True, destructive=True, aliases=("revert",))
async def undo(ctx: ToolContext, change: str | None) -> ToolResult:
    """Undo an earlier change to the notes (reverts its commit).

    Args:
        change: the change's id (a commit hash or its first characters), or null for
            the most recent change.
    """
    target = await _change_to_undo(ctx, change)
    await ctx.store.undo(
        target.commit,
        author=ctx.author,
        source=dict(ctx.source),
        expected_hash=ctx.expected_hash,
    )
    subject = target.message.splitlines()[0] if target.message else target.operation
    return ToolResult(
        {"undone": target.commit[:10], "subject": subject},
        f"Undid {subject} ({target.commit[:8]}).",
    )


@undo.preview
async def _preview_undo(ctx: ToolContext, args: BaseModel) -> Proposal:
    target = await _change_to_undo(ctx, args.model_dump()["change"])
    preview = await asyncio.to_thread(ctx.store.vault.preview_undo, target.commit)
    subject = target.message.splitlines()[0] if target.message else target.operation
    return Proposal(
        f"Undo {subject} ({target.commit[:8]})",
        preview.diff,
        preview.content_hash,
        pinned={"change": target.commit},
    )
