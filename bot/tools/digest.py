"""The digest as a tool ("what's on today?"), and settings in words."""

from __future__ import annotations

from typing import Literal

from bot.buttons.digest import present
from bot.digest.compose import compose_digest, local_zone
from bot.people.directory import WEEKDAYS
from bot.tools.registry import ToolContext, ToolError, ToolResult, tool
from storage.db.digest_log import DigestLog


@tool(read_only=True, idempotent=True)
async def generate_digest(ctx: ToolContext, kind: Literal["daily", "weekly"]) -> ToolResult:
    """Build the digest now: open projects and their next actions, due items and
    to-dos, people to follow up, new captures, inbox and stuck projects.

    Args:
        kind: daily, or weekly for a review of the week.
    """
    zone = local_zone(ctx.person.timezone, ctx.settings.timezone)
    day = ctx.now.astimezone(zone).date()
    digest = await compose_digest(ctx.store, day=day, kind=kind, zone=zone, now=ctx.now)
    reply, _ = await present(
        digest,
        user_id=ctx.person.id,
        records=ctx.records,
        digests=DigestLog(ctx.records.engine),
        now=ctx.now,
        vault_id=ctx.store.vault_id,
    )
    data = {"kind": kind, "digest": digest.text}
    return ToolResult(data, reply.text, reply.buttons)


@tool(idempotent=True)
async def update_settings(
    ctx: ToolContext,
    digest_time: str | None,
    digest_enabled: bool | None,
    timezone: str | None,
    weekly_day: str | None,
) -> ToolResult:
    """Change when the user gets their digest: time of day, on/off, time zone, and the
    day of the weekly review. Give only what changes.

    Args:
        digest_time: local time as HH:MM (24 h), or null.
        digest_enabled: true or false to turn the daily digest on or off, or null.
        timezone: an IANA time zone such as Europe/Berlin, or null.
        weekly_day: the weekday of the weekly review (monday … sunday), or null.
    """
    if ctx.people is None:
        raise ToolError("settings cannot be changed here")
    changes = [
        ["digest", digest_time] if digest_time else None,
        ["digest", "on" if digest_enabled else "off"] if digest_enabled is not None else None,
        ["timezone", timezone] if timezone else None,
        ["weekly", weekly_day.lower()] if weekly_day else None,
    ]
    if weekly_day and weekly_day.lower() not in WEEKDAYS:
        raise ToolError(f"weekly_day must be one of {', '.join(WEEKDAYS)}")
    answer = ""
    for words in (c for c in changes if c):
        # Each change updates the user row by id, so the same Person serves them all.
        answer = await ctx.people.change_settings(ctx.person, words)
        if not answer.startswith("Saved"):
            raise ToolError(answer)
    if not answer:
        raise ToolError("nothing to change")
    return ToolResult({"result": answer}, answer)
