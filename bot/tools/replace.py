"""`search_replace`: put other text in place of some text of a note, the first time,
every time, or the Nth time it occurs.

The text is looked for as written (no pattern, case as given) in the note's text only:
its fields are set with update_entry, so a replacement never rewrites an `id` or a
date by accident. It waits for Approve; the card shows every hit in its line, as it
reads before and after. Approved after the note changed, it changes nothing (the
hash of the note the card showed no longer holds: StaleEdit)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import BaseModel

from bot.tools.notes import resolve_entry
from bot.tools.registry import Proposal, ToolContext, ToolError, ToolResult, tool
from storage import Entry

CONTEXT = 40  # characters of the line shown on each side of a hit
HITS_SHOWN = 20  # hits an approval card shows; the rest are counted
QUOTED = 40  # characters of the searched text a summary repeats


@dataclass(frozen=True, slots=True)
class Replacement:
    """What a replacement does to a note's text: where the chosen hits are, how many
    the text holds, and the text after it."""

    find: str
    replace: str
    chosen: tuple[int, ...]  # offsets in the old text of the hits that are replaced
    total: int
    body: str
    nth: int | None  # the one hit asked for (1 for the first), None for all of them


def _occurrence(value: str | None) -> int | None:
    """`first` → 1, `all` → None (every hit), `3` or `3rd` → 3."""
    word = (value or "first").strip().lower()
    if word == "all":
        return None
    if word == "first":
        return 1
    digits = word.rstrip("stndrh.")  # 1st, 2nd, 3rd, 4th
    if digits.isdigit() and int(digits) >= 1:
        return int(digits)
    raise ToolError(f'occurrence must be "first", "all" or a number from 1, not {value!r}')


def replacement(entry: Entry, find: str, replace: str, occurrence: str | None) -> Replacement:
    """The replacement in `entry`'s text; ToolError when `find` is not there (saying
    when it is there in another case) or has fewer hits than the one asked for."""
    if not find:
        raise ToolError("find must be the text to look for; it is empty")
    if find == replace:
        raise ToolError("find and replace are the same text: nothing would change")
    nth = _occurrence(occurrence)
    body = entry.body
    hits: list[int] = []
    at = body.find(find)
    while at >= 0:
        hits.append(at)
        at = body.find(find, at + len(find))
    if not hits:
        hint = ""
        lowered = body.lower().find(find.lower())
        if lowered >= 0:
            hint = f" (it does as {body[lowered : lowered + len(find)]!r}: case matters)"
        raise ToolError(f"{_quoted(find)} does not occur in {entry.path}{hint}; nothing changed")
    if nth is not None and nth > len(hits):
        raise ToolError(
            f"{_quoted(find)} occurs {len(hits)} time{'s' * (len(hits) != 1)} in "
            f"{entry.path}, not {nth}; nothing changed"
        )
    chosen = tuple(hits) if nth is None else (hits[nth - 1],)
    parts, last = [], 0
    for start in chosen:
        parts += [body[last:start], replace]
        last = start + len(find)
    parts.append(body[last:])
    return Replacement(find, replace, chosen, len(hits), "".join(parts), nth)


def _quoted(text: str) -> str:
    flat = " ".join(text.split()) or repr(text)
    return f'"{flat if len(flat) <= QUOTED else flat[: QUOTED - 1] + "…"}"'


def hits_in_context(old: str, change: Replacement) -> str:
    """Each chosen hit as its line reads before (`-`) and after (`+`), cut to CONTEXT
    characters on each side: what the approval card shows."""
    lines = []
    for start in change.chosen[:HITS_SHOWN]:
        end = start + len(change.find)
        line_no = old.count("\n", 0, start) + 1
        line_start = old.rfind("\n", 0, start) + 1
        line_end = old.find("\n", end)
        line_end = len(old) if line_end < 0 else line_end
        left = old[max(line_start, start - CONTEXT) : start]
        right = old[end : min(line_end, end + CONTEXT)]
        left = ("…" if start - CONTEXT > line_start else "") + left
        right += "…" if end + CONTEXT < line_end else ""
        lines.append(f"line {line_no}:")
        lines.append(f"- {left}{change.find}{right}")
        lines.append(f"+ {left}{change.replace}{right}")
    if len(change.chosen) > HITS_SHOWN:
        lines.append(f"… and {len(change.chosen) - HITS_SHOWN} more")
    return "\n".join(lines)


def _counted(change: Replacement) -> str:
    """`all 3 hits`, `hit 2 of 3`, `the only hit`."""
    if change.total == 1:
        return "the only hit"
    if change.nth is None:
        return f"all {change.total} hits"
    return f"hit {change.nth} of {change.total}"


@tool(needs_approval=True, destructive=True, aliases=("replace", "find_replace"))
async def search_replace(
    ctx: ToolContext, path: str, find: str, replace: str, occurrence: str | None
) -> ToolResult:
    """Replace some text in a note's text with other text: the first time it occurs,
    every time, or the Nth time. The text is matched exactly as written (case too, no
    patterns); the note's fields are not touched (set them with update_entry).

    Args:
        path: the note's path.
        find: the exact text to look for.
        replace: the text to put in its place ("" removes it).
        occurrence: "first" (the default, also for null), "all", or a number: "2"
            for the second time it occurs.
    """
    entry = await ctx.store.read((await resolve_entry(ctx, path)).path)
    change = replacement(entry, find, replace, occurrence)
    updated, commit = await ctx.store.update_committed(
        entry.path,
        body=change.body,
        expected_hash=ctx.expected_hash or entry.content_hash,
        author=ctx.author,
        source=dict(ctx.source),
        operation="replace",
    )
    text = (
        f"Replaced {_quoted(find)} with {_quoted(replace) if replace else 'nothing'} in "
        f"{updated.path} ({_counted(change)})."
    )
    data = {"path": updated.path, "replaced": len(change.chosen), "occurrences": change.total}
    return ToolResult(data, text, entry_path=updated.path, commit=commit.commit)


@search_replace.preview
async def _preview_replace(ctx: ToolContext, args: BaseModel) -> Proposal:
    a = args.model_dump()
    entry = await ctx.store.read((await resolve_entry(ctx, a["path"])).path)
    change = replacement(entry, a["find"], a["replace"], a["occurrence"])
    preview = await asyncio.to_thread(ctx.store.vault.preview_update, entry.path, body=change.body)
    what = _quoted(a["replace"]) if a["replace"] else "nothing"
    summary = f"Replace {_quoted(a['find'])} with {what} in {entry.path} ({_counted(change)})"
    return Proposal(summary, hits_in_context(entry.body, change), preview.content_hash)
