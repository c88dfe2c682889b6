"""Tools that relocate a note: to another category (move_entry) or to a new name
(rename_entry), the links to it following. Each waits for Approve with a preview that
names the notes whose links change, but a correction: the note this chat filed last
(`last_filed`) moves at once ("actually that's a project", `fix: idea`)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from pydantic import BaseModel

from bot.tools.notes import capture, entry_summary, resolve_entry
from bot.tools.registry import Proposal, ToolContext, ToolError, ToolResult, tool
from storage import Preview

# How long after filing a note "actually that's a project" or `fix: idea` still means
# that note, and moves it without asking.
CORRECTION_WINDOW = timedelta(minutes=30)


async def last_filed(ctx: ToolContext) -> str | None:
    """The path of the note this conversation filed (or refiled) last, while a
    correction may still mean it (CORRECTION_WINDOW)."""
    return await ctx.records.tool_log.last_written_entry(
        ctx.conversation.key,
        ctx.person.id,
        ctx.now - CORRECTION_WINDOW,
        tools=(capture.name, move_entry.name),
    )


async def _unless_a_correction(ctx: ToolContext, args: BaseModel) -> bool:
    """A move waits for Approve, but a correction's: the note this chat filed last
    moves at once."""
    last = await last_filed(ctx)
    path = str(args.model_dump().get("path", ""))
    return last is None or path not in (last, last.removesuffix(".md"))


@tool(
    needs_approval=_unless_a_correction,
    destructive=True,
    idempotent=True,
    aliases=("move", "move_note", "refile"),
)
async def move_entry(ctx: ToolContext, path: str, category: str) -> ToolResult:
    """Move a note to another category (its fields follow the new category).
    Use it for corrections like "actually that's a project".

    Args:
        path: the note's path.
        category: the category to move it to.
    """
    entry = await resolve_entry(ctx, path)
    if category not in ctx.settings.categories:
        raise ToolError(f"unknown category {category!r}; use one of {ctx.settings.categories}")
    if entry.category == category:
        raise ToolError(f"{entry.path} is already in {category}")
    moved = await ctx.store.move(
        entry.path,
        category,
        expected_hash=ctx.expected_hash,
        author=ctx.author,
        source=dict(ctx.source),
    )
    return ToolResult(
        {"moved": entry_summary(moved), "from": entry.path},
        f"Moved {entry.path} to {moved.path}.",
        entry_path=moved.path,
    )


@move_entry.preview
async def _preview_move(ctx: ToolContext, args: BaseModel) -> Proposal:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    if a["category"] not in ctx.settings.categories:
        raise ToolError(f"unknown category {a['category']!r}")
    preview = await asyncio.to_thread(ctx.store.vault.preview_move, entry.path, a["category"])
    return Proposal(_relocation("Move", entry.path, preview), preview.diff, preview.content_hash)


RELINKED_SHOWN = 5  # notes an approval card names; the rest are counted


def _relocation(verb: str, path: str, preview: Preview) -> str:
    """`Move a.md → b.md`, and which notes get their links rewritten."""
    text = f"{verb} {path} → {preview.target or path}"
    notes = preview.relinked
    if notes:
        shown = ", ".join(notes[:RELINKED_SHOWN])
        more = f" and {len(notes) - RELINKED_SHOWN} more" if len(notes) > RELINKED_SHOWN else ""
        noun = "note" if len(notes) == 1 else "notes"
        text += f", updating links in {len(notes)} {noun}: {shown}{more}"
    return text


@tool(
    needs_approval=True,
    destructive=True,
    idempotent=True,
    aliases=("rename", "rename_note"),
)
async def rename_entry(
    ctx: ToolContext, path: str, title: str, file_name: str | None
) -> ToolResult:
    """Rename a note: a new title and file name in the same folder. Links to it in
    other notes are rewritten to the new name.

    Args:
        path: the note's path.
        title: the note's new title.
        file_name: the new file name (e.g. "matcha.md"), or null to make it from the title.
    """
    entry = await resolve_entry(ctx, path)
    renamed, change = await ctx.store.rename(
        entry.path,
        title,
        file_name,
        expected_hash=ctx.expected_hash,
        author=ctx.author,
        source=dict(ctx.source),
    )
    relinked = [p for p in change.paths if p not in (entry.path, renamed.path)]
    text = f"Renamed {entry.path} to {renamed.path} ({renamed.title})."
    if relinked:
        text += f" Links updated in {len(relinked)} {'note' if len(relinked) == 1 else 'notes'}."
    return ToolResult(
        {"renamed": entry_summary(renamed), "from": entry.path, "links_updated_in": relinked},
        text,
        entry_path=renamed.path,
        commit=change.commit,
    )


@rename_entry.preview
async def _preview_rename(ctx: ToolContext, args: BaseModel) -> Proposal:
    a = args.model_dump()
    entry = await resolve_entry(ctx, a["path"])
    preview = await asyncio.to_thread(
        ctx.store.vault.preview_rename, entry.path, a["title"], a["file_name"]
    )
    return Proposal(_relocation("Rename", entry.path, preview), preview.diff, preview.content_hash)
