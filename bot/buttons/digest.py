"""A digest in chat, and what its buttons do.

Each action item (an open project, an admin item due or without a due date) gets
Done, Snooze and Open. Done sets the note's status to done, Snooze sets its due
date to tomorrow in the person's time zone (a to-do without one is due then);
both commit at once, without an approval step, because the press itself is the
decision. The digest message is then redrawn showing what
happened, with that item's buttons gone. Open replies with the note.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from datetime import datetime, timedelta
from typing import Any

from bot.digest.compose import Digest, local_zone
from bot.events import Button, Reply
from bot.tools.registry import ToolContext
from bot.vault_access import in_vault
from storage.db.chat_tables import ButtonAction
from storage.db.digest_log import DigestLog, new_message_id
from storage.db.records import Records
from storage.errors import EntryNotFound, StorageError

log = logging.getLogger(__name__)

ACTION_KIND = "digest"  # ButtonAction.kind of a digest item's buttons
OPEN_CHARS = 3000  # an opened note is cut here, to stay one message on every platform


async def present(
    digest: Digest,
    *,
    user_id: int,
    records: Records,
    digests: DigestLog,
    now: datetime,
    vault_id: int = 1,
) -> tuple[Reply, str]:
    """The digest as a chat message with buttons for each action item, and the id
    under which it is kept so that a press can redraw it."""
    message_id = new_message_id()
    content = digest.to_content()
    for index, item in enumerate(content["items"]):
        if item["action"] and item["path"]:
            item["button"] = await records.add_button_action(
                user_id,
                ACTION_KIND,
                {"message": message_id, "item": index, "path": item["path"]},
                now,
                vault_id=vault_id,
            )
    await digests.add_message(
        message_id=message_id,
        user_id=user_id,
        kind=digest.kind,
        local_date=digest.day,
        content=content,
        now=now,
    )
    return draw(content), message_id


def draw(content: Mapping[str, Any], *, replace: bool = False) -> Reply:
    """The message for a kept digest: its text, and buttons for items not acted on."""
    buttons: list[Button] = []
    number = 0
    for item in content["items"]:
        if not item["action"]:
            continue
        number += 1
        button_id = item.get("button")
        if button_id and item.get("state") is None:
            buttons += [
                Button(f"Done {number}", "done", button_id, "primary"),
                Button(f"Snooze {number}", "snooze", button_id),
                Button(f"Open {number}", "open", button_id),
            ]
    return Reply(Digest.from_content(content).text, tuple(buttons), replace=replace)


class DigestButtons:
    """The `done`, `snooze` and `open` button handlers."""

    def __init__(self, digests: DigestLog) -> None:
        self.digests = digests

    def register(
        self, handlers: MutableMapping[str, Callable[[ToolContext, str], Awaitable[list[Reply]]]]
    ) -> None:
        """Add the digest's actions to the button handlers (`Buttons.handlers`)."""
        handlers.update(done=self.done, snooze=self.snooze, open=self.open)

    async def done(self, ctx: ToolContext, value: str) -> list[Reply]:
        return await self._act(ctx, value, "done")

    async def snooze(self, ctx: ToolContext, value: str) -> list[Reply]:
        return await self._act(ctx, value, "snooze")

    async def open(self, ctx: ToolContext, value: str) -> list[Reply]:
        action, refusal, ctx = await self._action(ctx, value)
        if action is None:
            return refusal
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

    async def _action(
        self, ctx: ToolContext, value: str
    ) -> tuple[ButtonAction | None, list[Reply], ToolContext]:
        action = await ctx.records.get_button_action(value)
        if action is None or action.kind != ACTION_KIND:
            return None, [Reply("I don't know that button any more; nothing changed.")], ctx
        scoped = await in_vault(ctx, action.vault_id)
        if action.user_id != ctx.person.id or scoped is None:
            return None, [Reply("Only the person this digest is for can use its buttons.")], ctx
        return action, [], scoped

    async def _act(self, ctx: ToolContext, value: str, what: str) -> list[Reply]:
        action, refusal, ctx = await self._action(ctx, value)
        if action is None:
            return refusal
        if await ctx.records.use_button_action(value, ctx.now) is None:
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
                zone = local_zone(ctx.person.timezone, ctx.settings.timezone)
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
