"""Done and Less like this on an older note the digest brought back (bot.digest.resurface);
its Open is the digest's own (bot.buttons.digest).

Done sets the note's `status: done` at once, as a digest item's Done does: a closed
note is never brought back again. Since an old idea being "done" is a smaller
decision than a finished task, the answer carries an Undo button for that one change.
Less like this halves the note's weight for resurfacing (storage.db.resurfaced):
it must then be closer to what was filed to come back, and after a second press it
never does. Both redraw the digest with what happened.
"""

from __future__ import annotations

import logging

from bot.buttons.digest import digest_pressed
from bot.buttons.dispatch import ButtonHandler
from bot.digest import LESS_ACTION, PAST_DONE_ACTION, draw
from bot.events import Reply
from bot.tools import ToolContext, undo_button
from storage import EntryNotFound, StorageError
from storage.db import NEVER_BELOW, DigestMessages

log = logging.getLogger(__name__)


class PastButtons(ButtonHandler):
    """The `past_done` and `less` buttons of an older note in a digest."""

    actions = (PAST_DONE_ACTION, LESS_ACTION)

    def __init__(self, digests: DigestMessages) -> None:
        self.digests = digests

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, ctx = await digest_pressed(ctx, value)
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # done or lowered already: a second press changes nothing
        path = str(stored.payload["path"])
        if action == LESS_ACTION:
            weight = await ctx.records.resurfaced.lower(ctx.store.vault_id, path, ctx.now)
            gone = weight < NEVER_BELOW
            state = "less like this: " + ("it won't come back" if gone else "shown less often")
            told: list[Reply] = []
        else:
            state, told = await self._done(ctx, path)
        message = await self.digests.mark_item(
            str(stored.payload["message"]), int(stored.payload["item"]), state
        )
        if message is None:
            return [Reply(f"{path}: {state}."), *told]
        return [draw(message.content, replace=True), *told]

    @staticmethod
    async def _done(ctx: ToolContext, path: str) -> tuple[str, list[Reply]]:
        """Close the note; the item's new state, and the answer with its Undo button."""
        source = {**ctx.source, "via": "digest-done"}
        try:
            entry, change = await ctx.store.update_committed(
                path, fields={"status": "done"}, author=ctx.author, source=source
            )
        except EntryNotFound:
            return "not found (moved or deleted?)", []
        except StorageError as exc:
            log.warning("digest done of %s failed: %s", path, exc)
            return f"not changed: {exc}", []
        summary = f"Marked “{entry.title}” done: it won't come back in your digest."
        return "done", [Reply(summary, (await undo_button(ctx, change.commit, path, summary),))]
