"""A question answered without a model: the notes its words found, each with a button
that opens it; and when no note holds its words, a plain "Nothing in your notes
about ..." that still offers the closest notes (found by meaning, or by the first
letters of its words: "gardening" finds the garden notes)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.commands.intent import search_words
from bot.events import Reply
from bot.tools import MAX_SOURCES, Outcome, ToolContext, ToolRunner, source_buttons, source_line
from storage.text.dates import question_span

ANSWERED = 5  # notes an answer lists
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


async def answer_question(ctx: ToolContext, runner: ToolRunner, question: str) -> list[Reply]:
    """The notes that best match a question's words. Time words ("yesterday", "letzte
    Woche", "en mars") are no words to look for: the search tool reads them from the
    question as days (bot.tools.search_span), and a question with nothing else in it
    lists what was filed then."""
    ctx = replace(ctx, said=question)
    span = question_span(question, ctx.zone, ctx.now)
    query = search_words(span.rest) if span else search_words(question)
    outcome = await runner.call(ctx, "search_entries", _search(query, ANSWERED))
    result = outcome.result
    used = result.data.get("range") if result else None
    if result is None or used is None:
        return await search_answer(ctx, runner, query, outcome)
    about = "" if used["listing"] else f'about "{query}" '
    named = f'notes {about}{used["notes"]} ("{used["words"]}")'
    if not result.data["results"]:
        return [Reply(f"I found no {named}.\n{KEEP}")]
    buttons = await source_buttons(ctx, list(result.read)[:MAX_SOURCES])
    return [Reply(f"The {named}:\n{result.text}\n{KEEP}", buttons=buttons)]
