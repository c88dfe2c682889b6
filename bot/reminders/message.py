"""A reminder as a chat message: the note's title and path, Done, and the Snooze
choices (an hour, tomorrow, next week), and when a snooze moves it to."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.events import Button, Reply
from storage.db import Records
from storage.text.dates import describe

REMINDER_ACTION_KIND = "reminder"  # ButtonAction.kind of a reminder's buttons
SNOOZES = {"hour": "Snooze 1 h", "day": "Tomorrow", "week": "Next week"}


async def reminder_message(
    *,
    records: Records,
    user_id: int,
    vault_id: int,
    path: str,
    title: str,
    at: datetime,
    zone: ZoneInfo,
    now: datetime,
) -> Reply:
    """The reminder of `path` due at `at`, with Done and the Snooze buttons."""
    payload = {"path": path, "title": title, "at": at.isoformat()}
    action = await records.buttons.add(
        user_id, REMINDER_ACTION_KIND, payload, now, vault_id=vault_id
    )
    local = at.astimezone(zone)
    lines = [f"⏰ {title}"]
    if now - at > timedelta(minutes=5):
        lines.append(
            f"(This was due {describe(local, now.astimezone(zone))}; I could not send it then.)"
        )
    lines.append(path)
    buttons = (
        Button("Done", "reminder_done", action, "primary"),
        *(Button(label, "reminder_snooze", f"{action}.{key}") for key, label in SNOOZES.items()),
    )
    return Reply("\n".join(lines), buttons)


def snoozed(choice: str, at: datetime, now: datetime, zone: ZoneInfo) -> datetime | None:
    """When a snooze moves a reminder that was due `at`: an hour from now, or tomorrow
    / a week from today at the reminder's own time of day (local)."""
    if choice == "hour":
        return (now + timedelta(hours=1)).astimezone(zone).replace(second=0, microsecond=0)
    days = {"day": 1, "week": 7}.get(choice)
    if days is None:
        return None
    day = now.astimezone(zone).date() + timedelta(days=days)
    local = at.astimezone(zone)
    return datetime.combine(day, local.time(), tzinfo=zone)
