"""What a reminder's buttons do (bot.reminders.message draws them).

Done closes the note (`status: done`); on a repeating note it records `last_done`
instead, since the next time is already written. Snooze moves the reminder an
hour, to tomorrow or to next week at the same time of day: a one-off note's
`remind` moves; a repeating note gets a `snooze` beside its rule. Each press
commits at once (the press is the decision), works once, and redraws the message.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.events import Reply
from bot.reminders import REMINDER_ACTION_KIND, SNOOZES, snoozed
from bot.tools import ToolContext
from storage import Entry, EntryNotFound, StorageError
from storage.text.dates import describe

log = logging.getLogger(__name__)


class ReminderButtons(ButtonHandler):
    """The `reminder_done` and `reminder_snooze` buttons."""

    actions = ("reminder_done", "reminder_snooze")

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        if action == "reminder_done":
            return await self._press(ctx, value, "done")
        action_id, _, choice = value.partition(".")
        if choice not in SNOOZES:
            return [Reply("That snooze is unknown; nothing changed.")]
        return await self._press(ctx, action_id, choice)

    async def _press(self, ctx: ToolContext, action_id: str, choice: str) -> list[Reply]:
        action, ctx = await pressed(
            ctx,
            action_id,
            REMINDER_ACTION_KIND,
            members=True,
            unknown="I don't know that reminder any more; nothing changed.",
            not_yours="Only the person this reminder is for can use its buttons.",
        )
        if await ctx.records.buttons.use(action_id, ctx.now) is None:
            return []  # pressed before: a second press changes nothing
        payload = action.payload
        path, title = str(payload["path"]), str(payload["title"])
        at = datetime.fromisoformat(str(payload["at"]))
        zone = ctx.vault_zone
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
