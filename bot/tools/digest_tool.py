"""The digest as a tool, for "what's on today?"."""

from __future__ import annotations

from typing import Literal
from zoneinfo import ZoneInfo

from bot.digest import compose_digest
from bot.tools.registry import ToolContext, ToolResult, tool


@tool()
async def generate_digest(ctx: ToolContext, kind: Literal["daily", "weekly"]) -> ToolResult:
    """Build the digest now: next actions, due items, people to follow up, new captures,
    inbox and stuck projects.

    Args:
        kind: daily, or weekly for a review of the week.
    """
    zone = ZoneInfo(ctx.person.timezone or ctx.settings.timezone)
    digest = await compose_digest(ctx.store, day=ctx.now.astimezone(zone).date(), kind=kind)
    data = {
        "kind": kind,
        "sections": [{"heading": s.heading, "lines": list(s.lines)} for s in digest.sections],
    }
    return ToolResult(data, digest.text)
