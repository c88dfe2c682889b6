"""The Link button under a capture's related notes: the press writes the Related line
into the new note at once (the press is the decision), with Undo.

The note may have moved (filed from the inbox) or changed (a shared link's page read
into it) since the suggestion: the line is added to the note as it is now, found by
its `id`. A note deleted since, or linked notes that are all gone, change nothing
and say so. Only the person who captured the note may press it.
"""

from __future__ import annotations

from bot.buttons import ButtonHandler, pressed
from bot.connect.related import (
    LINK_ACTION,
    LINK_KIND,
    linked_to,
    write_links,
)
from bot.enrich import where_now
from bot.events import Reply
from bot.tools import ToolContext, ToolError, ToolRunner, undo_button
from storage import StorageError


class LinkButton(ButtonHandler):
    """The `link_related` button."""

    actions = (LINK_ACTION,)

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, ctx = await pressed(
            ctx,
            value,
            LINK_KIND,
            members=False,
            unknown="I don't know that Link button; nothing changed.",
            not_yours="Only the person who captured this note can link it.",
        )
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # linked already: a second press changes and says nothing
        path = str(stored.payload["path"])
        links = [(str(p), str(t)) for p, t in stored.payload["links"]]
        try:
            note = await where_now(ctx.store, path, str(stored.payload.get("note_id", "")))
            if note is None:
                return [Reply(f"{path} is gone; nothing was linked.", replace=True)]
            written = await write_links(self.runner, ctx, note, links)
        except (ToolError, StorageError) as exc:
            return [Reply(f"Could not link {path}: {exc}. Nothing changed.", replace=True)]
        if written is None:
            return [
                Reply(
                    f"Nothing to link: {note.path} has those links already, or they are gone.",
                    replace=True,
                )
            ]
        updated, commit, titles = written
        summary = linked_to(titles)
        return [
            Reply(summary, (await undo_button(ctx, commit, updated.path, summary),), replace=True)
        ]
