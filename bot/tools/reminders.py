"""The reminders of a vault as a list (`/reminders`, "what do I need to be reminded of?")."""

from __future__ import annotations

from datetime import datetime

from bot.tools.registry import ToolContext, ToolResult, tool
from storage.index import reminder_notes
from storage.text.dates import OutOfRange, describe, read_when
from storage.vault import CLOSED_STATUSES

SHOWN = 20


@tool(read_only=True, idempotent=True)
async def list_reminders(ctx: ToolContext) -> ToolResult:
    """List the user's reminders: what is coming up, and earlier ones not done yet."""
    zone = ctx.vault_zone
    now = ctx.now.astimezone(zone)
    notes = await reminder_notes(
        ctx.store.database.engine, closed=CLOSED_STATUSES, vault_id=ctx.store.vault_id
    )
    upcoming: list[tuple[datetime, str, dict[str, str]]] = []
    earlier: list[tuple[datetime, str, dict[str, str]]] = []
    unreadable: list[str] = []
    for note in notes:
        try:
            # A wall time is in the note's own `timezone` when it records one.
            read = [
                read_when(
                    v, now=now, zone=note.zone or zone, default_time=ctx.settings.reminder_time
                )
                for v in (note.remind, note.snooze)
            ]
        except OutOfRange as exc:  # written by hand; the scheduler skips it too
            unreadable.append(f"• {note.title} ({note.path}): {exc}")
            continue
        times = [t for t in read if t is not None]
        ahead = [t for t in times if t > now]
        at = min(ahead) if ahead else max(times, default=None)
        if at is None:
            continue
        repeat = f", repeats {note.repeat}" if note.repeat else ""
        item = {"path": note.path, "title": note.title, "at": at.isoformat()}
        if note.repeat:
            item["repeat"] = note.repeat
        line = f"{note.title} ({note.path}){repeat}"
        (upcoming if at > now else earlier).append((at, line, item))
    upcoming.sort(key=lambda x: x[0])
    earlier.sort(key=lambda x: x[0], reverse=True)
    lines: list[str] = []
    if upcoming:
        lines.append("Coming up:")
        lines += [f"• {describe(at, now)}: {line}" for at, line, _ in upcoming[:SHOWN]]
        if len(upcoming) > SHOWN:
            lines.append(f"  …and {len(upcoming) - SHOWN} more")
    if earlier:
        lines.append("Earlier, not done yet:")
        lines += [f"• {describe(at, now)}: {line}" for at, line, _ in earlier[:SHOWN]]
        if len(earlier) > SHOWN:
            lines.append(f"  …and {len(earlier) - SHOWN} more")
    if unreadable:
        lines += ["Not sent, the time cannot be read:", *unreadable[:SHOWN]]
    if not lines:
        lines = ['No reminders. Say "remind me to … tomorrow at 9" to set one.']
    data = {
        "upcoming": [item for _, _, item in upcoming[:SHOWN]],
        "earlier_not_done": [item for _, _, item in earlier[:SHOWN]],
    }
    return ToolResult(data, "\n".join(lines))
