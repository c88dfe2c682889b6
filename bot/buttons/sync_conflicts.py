"""Telling a person about a sync conflict, and the buttons that settle it.

When the bot and a device changed the same lines of a note, the sync with the git
remote keeps both: the note holds the bot's version and a conflict copy beside it
the device's (storage.vault.merging). The person is told in their chat, with a
button for each version; a press keeps that one in the note and removes the copy,
in one commit. A press works once; a copy already removed by hand changes nothing.
"""

from __future__ import annotations

from datetime import datetime

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.events import Button, Reply
from bot.tools import ToolContext
from storage import EntryNotFound, StorageError
from storage.db import Records

CONFLICT_KIND = "sync_conflict"  # ButtonAction.kind of a conflict's buttons
KEEP_NOTE = "conflict_keep_note"
KEEP_COPY = "conflict_keep_copy"


async def conflict_message(
    records: Records,
    user_id: int,
    vault_id: int,
    path: str,
    copy: str,
    device: str,
    now: datetime,
) -> Reply:
    """The chat message about one conflict, with a button for each version."""
    action_id = await records.buttons.add(
        user_id,
        CONFLICT_KIND,
        {"path": path, "copy": copy, "device": device},
        now,
        vault_id=vault_id,
    )
    text = (
        f"⚠️ {path} was changed here and on {device} at the same lines. "
        f"Nothing is lost: {path} holds the bot's version, {copy} holds {device}'s. "
        "Which one should the note keep? (The other is removed; git keeps it.)"
    )
    return Reply(
        text,
        buttons=(
            Button("Keep the bot's version", KEEP_NOTE, action_id, "primary"),
            Button(f"Keep {device}'s version"[:60], KEEP_COPY, action_id),
        ),
    )


class ConflictButtons(ButtonHandler):
    """The `conflict_keep_note` and `conflict_keep_copy` buttons."""

    actions = (KEEP_NOTE, KEEP_COPY)

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, scoped = await pressed(
            ctx,
            value,
            CONFLICT_KIND,
            members=True,
            unknown="I don't know that conflict any more; nothing changed.",
            not_yours="Only the person whose vault this is can settle this conflict.",
        )
        if await ctx.records.buttons.use(value, ctx.now) is None:
            return []  # settled already: a second press changes and says nothing
        path, copy = str(stored.payload["path"]), str(stored.payload["copy"])
        device = str(stored.payload["device"])
        keep_copy = action == KEEP_COPY
        kept = f"{device}'s version" if keep_copy else "the bot's version"
        try:
            await scoped.store.keep_version(path, copy, keep_copy=keep_copy, author=ctx.author)
        except EntryNotFound:
            return [Reply(f"{copy} is gone already (settled by hand?); nothing changed.")]
        except StorageError as exc:
            return [Reply(f"Could not settle {path}: {exc}. Nothing changed.")]
        return [Reply(f"✓ {path} keeps {kept}; {copy} is removed.", replace=True)]
