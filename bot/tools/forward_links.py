"""`list_forward_links`: the notes a note links to, found the way backlinks are, so
the two agree; a link whose note does not exist yet is listed as missing."""

from __future__ import annotations

from typing import Any

from bot.tools.context import ReadNote
from bot.tools.notes import resolve_entry
from bot.tools.registry import ToolContext, ToolResult, tool
from storage.index import OutLink, outgoing_links


def link_summary(link: OutLink) -> dict[str, Any]:
    """One link as the model reads it (a dict, so that what else a link is known by,
    such as the kind of relation it names, can join it)."""
    summary: dict[str, Any] = {"target": link.target, "context": link.context}
    if link.relation:
        summary["type"] = link.relation
    if link.missing:
        summary["missing"] = True
        return summary
    (path, title), *others = link.notes
    summary.update(path=path, title=title, missing=False)
    if others:
        summary["also"] = [p for p, _ in others]  # the same name in other folders
    return summary


def _line(link: OutLink) -> str:
    typed = f"{link.relation} → " if link.relation else ""
    if link.missing:
        return f"- {typed}{link.target} (missing: no note yet)"
    (path, title), *others = link.notes
    more = f", also {', '.join(p for p, _ in others)}" if others else ""
    return f"- {typed}{title} ({path}{more})"


@tool(read_only=True, idempotent=True, aliases=("links", "forward_links"))
async def list_forward_links(ctx: ToolContext, path: str) -> ToolResult:
    """List the notes a note links to (wikilinks or Markdown links, not in code), each
    with the line that holds it; a link to a note that does not exist is marked missing.

    Args:
        path: the note's path.
    """
    entry = await ctx.store.read((await resolve_entry(ctx, path)).path)
    found = await outgoing_links(
        ctx.store.database.engine, ctx.store.vault_id, entry.path, entry.body
    )
    links = [link_summary(link) for link in found]
    missing = sum(link.missing for link in found)
    if not found:
        text = f"{entry.path} links to no note."
    else:
        head = f"{entry.path} links to {len(found)} note{'s' * (len(found) != 1)}"
        head += f" ({missing} missing):" if missing else ":"
        text = "\n".join([head, *(_line(link) for link in found)])
    read = tuple(ReadNote(link.notes[0][0], link.notes[0][1]) for link in found if link.notes)
    return ToolResult({"path": entry.path, "links": links}, text, read=read)
