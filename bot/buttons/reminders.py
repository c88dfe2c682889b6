"""A reminder in chat, and what its buttons do.

Done closes the note (`status: done`); on a repeating note it records `last_done`
instead, since the next time is already written. Snooze moves the reminder an
hour, to tomorrow or to next week at the same time of day: a one-off note's
`remind` moves; a repeating note gets a `snooze` beside its rule. Each press
commits at once (the press is the decision), works once, and redraws the message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.config import Settings
from bot.dates.when import describe
from bot.digest.compose import local_zone
from bot.events import Button, Reply
from bot.tools.registry import ToolContext
from bot.vault_access import in_vault, is_team
from storage.db.records import Records
from storage.entry import Entry
from storage.errors import EntryNotFound, StorageError

log = logging.getLogger(__name__)

ACTION_KIND = "reminder"  # ButtonAction.kind of a reminder's buttons
_TIME = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
SNOOZES = {"hour": "Snooze 1 h", "day": "Tomorrow", "week": "Next week"}


def reminder_time(settings: Settings) -> time:
    """When a reminder set for a date alone goes out (BRAINBOT_REMINDER_TIME, HH:MM)."""
    match = _TIME.fullmatch(settings.reminder_time.strip())
    return time(int(match[1]), int(match[2])) if match else time(9, 0)


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
    action = await records.add_button_action(user_id, ACTION_KIND, payload, now, vault_id=vault_id)
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


class ReminderButtons:
    """The `reminder_done` and `reminder_snooze` handlers."""

    def register(
        self, handlers: MutableMapping[str, Callable[[ToolContext, str], Awaitable[list[Reply]]]]
    ) -> None:
        handlers.update(reminder_done=self.done, reminder_snooze=self.snooze)

    async def done(self, ctx: ToolContext, value: str) -> list[Reply]:
        return await self._press(ctx, value, "done")

    async def snooze(self, ctx: ToolContext, value: str) -> list[Reply]:
        action_id, _, choice = value.partition(".")
        if choice not in SNOOZES:
            return [Reply("That snooze is unknown; nothing changed.")]
        return await self._press(ctx, action_id, choice)

    async def _press(self, ctx: ToolContext, action_id: str, choice: str) -> list[Reply]:
        action = await ctx.records.get_button_action(action_id)
        if action is None or action.kind != ACTION_KIND:
            return [Reply("I don't know that reminder any more; nothing changed.")]
        scoped = await in_vault(ctx, action.vault_id)
        if scoped is None or (action.user_id != ctx.person.id and not is_team(scoped)):
            return [Reply("Only the person this reminder is for can use its buttons.")]
        ctx = scoped
        if await ctx.records.use_button_action(action_id, ctx.now) is None:
            return []  # pressed before: a second press changes nothing
        payload = action.payload
        path, title = str(payload["path"]), str(payload["title"])
        at = datetime.fromisoformat(str(payload["at"]))
        zone = (
            local_zone(None, ctx.settings.timezone)
            if is_team(ctx)
            else local_zone(ctx.person.timezone, ctx.settings.timezone)
        )
        try:
            entry = await ctx.store.read(path)
            state = await self._apply(ctx, entry, choice, at, zone)
        except EntryNotFound:
            state = "not found (moved or deleted?); nothing changed"
        except StorageError as exc:
            log.warning("reminder %s of %s failed: %s", choice, path, exc)
            state = f"not changed: {exc}"
        return [Reply(f"⏰ {title}\n{state}", replace=True)]

    @staticmethod
    async def _apply(
        ctx: ToolContext, entry: Entry, choice: str, at: datetime, zone: ZoneInfo
    ) -> str:
        repeating = entry.fields.get("repeat") not in (None, "")
        source = {**ctx.source, "via": f"reminder-{choice}"}
        fields: dict[str, Any]
        remove: tuple[str, ...] = ()
        if choice == "done":
            if repeating:
                fields = {"last_done": ctx.now.astimezone(zone).date()}
                remove = ("snooze",) if "snooze" in entry.fields else ()
                state = f"✓ done (repeats {entry.fields['repeat']})"
            else:
                fields, state = {"status": "done"}, "✓ done"
        else:
            until = snoozed(choice, at, ctx.now, zone)
            assert until is not None
            fields = {"snooze" if repeating else "remind": until}
            state = f"→ snoozed to {describe(until, ctx.now.astimezone(zone))}"
        await ctx.store.update(
            entry.path, fields=fields, remove_fields=remove, author=ctx.author, source=source
        )
        return state
