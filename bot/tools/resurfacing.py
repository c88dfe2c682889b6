"""`get_random_note`: one note drawn at random, to bring back something forgotten (what
resurfacing draws from). Only notes still open are drawn: a status that closes a note
(done, archived...) or an `archived: true` field leaves it out, as do notes outside the
categories (digests, daily notes, an archive folder)."""

from __future__ import annotations

import random

from bot.tools.notes import get_entry
from bot.tools.registry import ToolContext, ToolError, ToolResult, tool
from storage.index.filters import Filters
from storage.index.lookups import random_entry
from storage.vault.schema import CLOSED_STATUSES

# Where the draws come from; a test seeds it (`DRAW.seed(7)`) to draw the same notes.
DRAW = random.Random()


@tool(read_only=True)
async def get_random_note(ctx: ToolContext, tag: str | None, category: str | None) -> ToolResult:
    """Show one note picked at random from the open ones (not done or archived), to
    resurface something forgotten; optionally only notes with a tag or of a category.

    Args:
        tag: only notes with this tag (without #), or null.
        category: only notes of this category, or null.
    """
    if category is not None and category not in ctx.settings.categories:
        raise ToolError(f"unknown category {category!r}; use one of {ctx.settings.categories}")
    tag = tag.strip().lstrip("#") if tag else None
    filters = Filters(category=category, tags=(tag,) if tag else ())
    async with ctx.store.database.engine.connect() as conn:
        entry = await random_entry(
            conn,
            ctx.store.vault_id,
            filters,
            folders=ctx.settings.categories,
            closed=CLOSED_STATUSES,
            draw=DRAW.randrange,
        )
    if entry is None:
        where = "".join([f" tagged #{tag}" if tag else "", f" in {category}" if category else ""])
        return ToolResult({"note": None}, f"No open notes{where} to draw from.")
    return await get_entry.executor(ctx, path=entry.path)
