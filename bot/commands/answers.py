"""A question answered without a model: the notes its words found, each with a button
that opens it; and when no note holds its words, a plain "Nothing in your notes
about ..." that still offers the closest notes (found by meaning, or by the first
letters of its words: "gardening" finds the garden notes)."""

from __future__ import annotations

from typing import Any

from bot.events import Reply
from bot.tools import MAX_SOURCES, Outcome, ToolContext, ToolRunner, source_buttons, source_line

KEEP = "(I did not save your question. To keep it as a note: /capture TEXT)"
STEM_CHARS = 4  # a word of the question cut to this many letters finds its relatives
CLOSEST = 3


def nothing_about(query: str) -> str:
    return f'Nothing in your notes about "{query}".'


def _search(query: str, limit: int) -> dict[str, Any]:
    return {
        "query": query,
        "category": None,
        "tags": None,
        "status": None,
        "modified_after": None,
        "modified_before": None,
        "limit": limit,
    }


def _stems(query: str) -> str:
    """The question's longer words cut short, each then matching the words it begins."""
    return " ".join(w[:STEM_CHARS] for w in query.split() if len(w) > STEM_CHARS and w.isalpha())


async def search_answer(
    ctx: ToolContext, runner: ToolRunner, query: str, outcome: Outcome
) -> list[Reply]:
    """The reply to a question whose words were searched (`outcome`): the hits with
    why each matched and an Open button each; else that nothing was found, and the
    closest notes."""
    result = outcome.result
    read = list(result.read) if result is not None else []
    if result is not None and any(n.matched in ("words", "both") for n in read):
        buttons = await source_buttons(ctx, read[:MAX_SOURCES])
        return [Reply(f'Notes about "{query}":\n{result.text}\n{KEEP}', buttons=buttons)]
    # Found by meaning alone (none holds the words), or by the words' first letters.
    notes = read[:CLOSEST]
    stems = _stems(query)
    if not notes and stems and stems != query:
        closest = (await runner.call(ctx, "search_entries", _search(stems, CLOSEST))).result
        notes = list(closest.read[:CLOSEST]) if closest is not None else []
    if not notes:
        return [Reply(f"{nothing_about(query)}\n{KEEP}")]
    buttons = await source_buttons(ctx, notes)
    lines = "\n".join(source_line(n) for n in notes)
    return [Reply(f"{nothing_about(query)} The closest notes:\n{lines}\n{KEEP}", buttons=buttons)]
