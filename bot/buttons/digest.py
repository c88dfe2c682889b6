"""What a digest's buttons do (bot.digest.message draws them).

Done sets the note's status to done, Snooze sets its due date to tomorrow in the
person's time zone (a to-do without one is due then); both commit at once, without
an approval step, because the press itself is the decision. The digest message is
then redrawn showing what happened, with that item's buttons gone. Open replies with
the note.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.digest import DIGEST_ACTION_KIND, draw
from bot.events import Reply
from bot.tools import ToolContext
from storage import EntryNotFound, StorageError
from storage.db import ButtonAction, DigestMessages

log = logging.getLogger(__name__)

OPEN_CHARS = 3000  # an opened note is cut here, to stay one message on every platform


class DigestButtons(ButtonHandler):
    """The `done`, `snooze` and `open` buttons of a digest's items."""

    actions = ("done", "snooze", "open")

    def __init__(self, digests: DigestMessages) -> None:
        self.digests = digests

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        if action == "open":
            return await self.open(ctx, value)
        return await self._act(ctx, value, action)

    async def open(self, ctx: ToolContext, value: str) -> list[Reply]:
        action, ctx = await digest_pressed(ctx, value)
        path = str(action.payload["path"])
        try:
            entry = await ctx.store.read(path)
        except EntryNotFound:
            return [Reply(f"{path} is not there any more (moved or deleted?).")]
        facts = " · ".join(
            f"{name.replace('_', ' ')}: {entry.fields[name]}"
            for name in ("status", "due", "next_action")
            if entry.fields.get(name) not in (None, "")
        )
        body = entry.body.strip()
        if len(body) > OPEN_CHARS:
            body = body[: OPEN_CHARS - 1] + "…"
        text = "\n\n".join(part for part in (f"{entry.title} ({entry.path})", facts, body) if part)
        return [Reply(text)]

    async def _act(self, ctx: ToolContext, value: str, what: str) -> list[Reply]:
        action, ctx = await digest_pressed(ctx, value)
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # this item was already done or snoozed: a second press changes nothing
        path = str(action.payload["path"])
        source = {**ctx.source, "via": f"digest-{what}"}
        try:
            if what == "done":
                await ctx.store.update(
                    path, fields={"status": "done"}, author=ctx.author, source=source
                )
                state = "done"
            else:
                zone = ctx.zone
                tomorrow = ctx.now.astimezone(zone).date() + timedelta(days=1)
                await ctx.store.update(
                    path, fields={"due": tomorrow}, author=ctx.author, source=source
                )
                state = f"snoozed to {tomorrow.isoformat()}"
        except EntryNotFound:
            state = "not found (moved or deleted?)"
        except StorageError as exc:
            log.warning("digest %s of %s failed: %s", what, path, exc)
            state = f"not changed: {exc}"
        message = await self.digests.mark_item(
            str(action.payload["message"]), int(action.payload["item"]), state
        )
        if message is None:
            return [Reply(f"{path}: {state}.")]
        return [draw(message.content, replace=True)]


async def digest_pressed(ctx: ToolContext, value: str) -> tuple[ButtonAction, ToolContext]:
    """The stored action behind a digest's button (any of its kinds: an item's Done,
    an older note's Less like this, a mention's Link), refused for anyone but the
    person the digest is for."""
    return await pressed(
        ctx,
        value,
        DIGEST_ACTION_KIND,
        members=False,
        unknown="I don't know that button any more; nothing changed.",
        not_yours="Only the person this digest is for can use its buttons.",
    )
