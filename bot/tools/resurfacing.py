"""`get_random_note`: one note drawn at random, to bring back something forgotten (what
resurfacing draws from). Only notes still open are drawn: a status that closes a note
(done, archived...) or an `archived: true` field leaves it out, as do the folders that
hold no thoughts of their own (SKIPPED_FOLDERS, and the daily notes' folder)."""

from __future__ import annotations

import random

from bot.tools.note_names import category_named
from bot.tools.notes import get_entry
from bot.tools.registry import ToolContext, ToolResult, tool
from storage.index import Filters, random_entry
from storage.vault import CLOSED_STATUSES, NOT_THOUGHTS, PUT_AWAY

# Folders (at any depth, any case) whose notes are not drawn: put away, generated, or
# scaffolding. An imported vault's own folders (`People/`, the root) are drawn from.
SKIPPED_FOLDERS = (*PUT_AWAY, *NOT_THOUGHTS)
# Where the draws come from; a test seeds it (`DRAW.seed(7)`) to draw the same notes.
DRAW = random.Random()


@tool(read_only=True, aliases=("random", "random_note"))
async def get_random_note(ctx: ToolContext, tag: str | None, category: str | None) -> ToolResult:
    """Show one note picked at random from the open ones (not done or archived), to
    resurface something forgotten; optionally only notes with a tag or of a category.

    Args:
        tag: only notes with this tag (without #), or null.
        category: only notes of this category (a top folder of the vault), or null.
    """
    if category is not None:  # "project" means projects; an imported vault's own folders count
        category = category_named(category, ctx.settings.categories) or category.strip()
    tag = tag.strip().lstrip("#") if tag else None
    filters = Filters(category=category, tags=(tag,) if tag else ())
    skip_folders = (*SKIPPED_FOLDERS, *await _daily_folder(ctx))
    async with ctx.store.database.engine.connect() as conn:
        entry = await random_entry(
            conn,
            ctx.store.vault_id,
            filters,
            skip_folders=skip_folders,
            closed=CLOSED_STATUSES,
            draw=DRAW.randrange,
        )
    if entry is None:
        where = "".join([f" tagged #{tag}" if tag else "", f" in {category}" if category else ""])
        return ToolResult({"note": None}, f"No open notes{where} to draw from.")
    return await get_entry.executor(ctx, path=entry.path)


async def _daily_folder(ctx: ToolContext) -> tuple[str, ...]:
    """The daily notes' folder, when they have one of their own (not the vault's root)."""
    notes = await ctx.store.daily_notes(ctx.settings.daily_note)
    return (notes.folder,) if notes is not None and notes.folder else ()
