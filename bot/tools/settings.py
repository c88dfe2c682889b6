"""The person's settings as a tool ("send my digest at 7", "I moved to Berlin")."""

from __future__ import annotations

from bot.people import SettingsChange, weekday
from bot.tools.registry import ToolContext, ToolError, ToolResult, tool
from storage.text.dates import NotATimeOfDay, UnknownZone, time_of_day, zone_named


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
        weekly_day: the weekday of the weekly review (monday … sunday), "off" to stop
            it, "on" to start it again, or null.
    """
    if ctx.people is None:
        raise ToolError("settings cannot be changed here")
    weekly = (weekly_day or "").strip().lower()
    try:
        change = SettingsChange(
            digest_time=time_of_day(digest_time) if digest_time else None,
            digest_enabled=digest_enabled,
            timezone=zone_named(timezone) if timezone else None,
            weekly_day=weekday(weekly) if weekly and weekly not in ("on", "off") else None,
            weekly_enabled=(weekly == "on") if weekly in ("on", "off") else None,
        )
    except (NotATimeOfDay, UnknownZone, ValueError) as exc:
        raise ToolError(str(exc)) from None
    if change.empty:
        raise ToolError("nothing to change")
    person = await ctx.people.update_settings(ctx.person, change)
    answer = "Saved. " + ctx.people.describe(person)
    return ToolResult({"result": answer}, answer)
