"""The Link button of an unlinked mention in the weekly review (bot.digest.unlinked_mentions):
the note's first mention of the other note's name becomes a wikilink, at once (the
press is the decision), as one commit with an Undo button. Only while the note is as
the review read it: a note changed since then is refused and left as it is, since
the mention may have moved or gone, and so is one whose target is gone."""

from __future__ import annotations

import logging

from bot.buttons.digest import digest_pressed
from bot.buttons.dispatch import ButtonHandler
from bot.digest import LINK_ACTION, draw
from bot.events import Reply
from bot.tools import ToolContext, ToolResult, ToolRunner
from storage import EntryNotFound, StaleEdit, StorageError
from storage.db import DigestMessages
from storage.index import MentionText

log = logging.getLogger(__name__)


class MentionLinks(ButtonHandler):
    """The `link_mention` buttons."""

    actions = (LINK_ACTION,)

    def __init__(self, digests: DigestMessages, runner: ToolRunner) -> None:
        self.digests = digests
        self.runner = runner

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, ctx = await digest_pressed(ctx, value)
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # linked (or refused) already: a second press changes nothing
        payload = stored.payload
        path = str(payload["path"])
        try:
            state, result = await self._link(
                ctx, path, str(payload["target"]), str(payload["name"]), payload["content_hash"]
            )
        except StorageError as exc:
            log.warning("linking a mention in %s failed: %s", path, exc)
            state, result = f"not linked: {exc}", None
        message = await self.digests.mark_item(str(payload["message"]), int(payload["item"]), state)
        replies = [draw(message.content, replace=True)] if message else [Reply(f"{path}: {state}.")]
        if result is not None:
            replies.append(Reply(result.text, result.buttons))
        return replies

    async def _link(
        self, ctx: ToolContext, path: str, target: str, name: str, content_hash: str
    ) -> tuple[str, ToolResult | None]:
        """What the press did (the item's new state), and the change made, if any."""
        try:
            entry = await ctx.store.read(path)
        except EntryNotFound:
            return "not linked: the note is not there any more (moved or deleted?)", None
        if entry.content_hash != content_hash:
            return "not linked: the note changed since this review, nothing changed", None
        try:
            other = await ctx.store.read(target)
        except EntryNotFound:
            return f"not linked: {target} is not there any more", None
        body = MentionText(entry.body).linked(name, other.path)
        if body is None:
            return "not linked: the mention is not there any more", None
        source = {**ctx.source, "via": "digest-link"}
        try:
            _, change = await ctx.store.update_committed(
                path,
                body=body,
                expected_hash=content_hash,
                author=ctx.author,
                source=source,
                operation="link",
            )
        except StaleEdit:
            return "not linked: the note changed since this review, nothing changed", None
        text = f"Linked {other.title} in {entry.title} ({path})."
        done = ToolResult({}, text, entry_path=path, commit=change.commit)
        return "linked", await self.runner.with_undo(ctx, done)
