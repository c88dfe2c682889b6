"""The digest as a tool ("what's on today?")."""

from __future__ import annotations

from typing import Literal

from bot.digest import compose_digest, present
from bot.tools.registry import ToolContext, ToolResult, tool


@tool(read_only=True, idempotent=True, aliases=("digest",))
async def generate_digest(ctx: ToolContext, kind: Literal["daily", "weekly"]) -> ToolResult:
    """Build the digest now: open projects and their next actions, due items and
    to-dos, people to follow up, new captures, inbox and stuck projects.

    Args:
        kind: daily, or weekly for a review of the week.
    """
    zone = ctx.zone
    day = ctx.now.astimezone(zone).date()
    digest = await compose_digest(ctx.store, day=day, kind=kind, zone=zone, now=ctx.now)
    reply, _ = await present(
        digest,
        user_id=ctx.person.id,
        records=ctx.records,
        digests=ctx.records.digest_messages,
        now=ctx.now,
        vault_id=ctx.store.vault_id,
    )
    data = {"kind": kind, "digest": digest.text}
    return ToolResult(data, reply.text, reply.buttons)
