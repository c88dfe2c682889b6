"""A digest as a chat message: its text, and Done, Snooze and Open buttons for each
action item (an open project, an admin item due or without a due date), Open, Done
and Less like this for an older note brought back, a Link button for each unlinked
mention, kept so a press can redraw it (bot.buttons.digest, bot.buttons.resurface,
bot.buttons.unlinked_mentions)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.digest.compose import PAST_ITEM, Digest
from bot.events import Button, Reply
from storage.db import DigestMessages, Records, new_message_id

DIGEST_ACTION_KIND = "digest"  # ButtonAction.kind of a digest item's buttons
PAST_DONE_ACTION = "past_done"  # Button.action of Done on an older note (with an Undo)
LESS_ACTION = "less"  # Button.action of Less like this
LINK_ACTION = "link_mention"  # Button.action of an unlinked mention's Link button


async def present(
    digest: Digest,
    *,
    user_id: int,
    records: Records,
    digests: DigestMessages,
    now: datetime,
    vault_id: int = 1,
) -> tuple[Reply, str]:
    """The digest as a chat message with buttons for each action item, and the id
    under which it is kept so that a press can redraw it."""
    message_id = new_message_id()
    content = digest.to_content()
    for index, item in enumerate(content["items"]):
        if item["action"] and item["path"]:
            item["button"] = await records.buttons.add(
                user_id,
                DIGEST_ACTION_KIND,
                {"message": message_id, "item": index, "path": item["path"]},
                now,
                vault_id=vault_id,
            )
        elif item.get("link") and item["path"]:
            item["button"] = await records.buttons.add(
                user_id,
                DIGEST_ACTION_KIND,
                {"message": message_id, "item": index, "path": item["path"], **item["link"]},
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
        if not (item["action"] or item.get("link")):
            continue
        number += 1
        button_id = item.get("button")
        if button_id and item.get("state") is None and item.get("buttons") == PAST_ITEM:
            buttons += [
                Button(f"Open {number}", "open", button_id),
                Button(f"Done {number}", PAST_DONE_ACTION, button_id),
                Button(f"Less like this {number}", LESS_ACTION, button_id),
            ]
        elif button_id and item.get("state") is None and not item["action"]:
            buttons.append(Button(f"Link {number}", LINK_ACTION, button_id))
        elif button_id and item.get("state") is None:
            buttons += [
                Button(f"Done {number}", "done", button_id, "primary"),
                Button(f"Snooze {number}", "snooze", button_id),
                Button(f"Open {number}", "open", button_id),
            ]
    return Reply(Digest.from_content(content).text, tuple(buttons), replace=replace)
