"""Builders for the update JSON Telegram sends, with realistic defaults, for
queueing on the fake Bot API or POSTing to the webhook route."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Any


class Updates:
    """Builders for the update JSON Telegram sends, with realistic defaults."""

    def __init__(self, chat_id: int = 42, user_id: int = 42, first_name: str = "Ada"):
        self.chat_id = chat_id
        self.user = {"id": user_id, "is_bot": False, "first_name": first_name, "username": "ada"}
        self._message_ids = itertools.count(1)

    def message(
        self,
        text: str | None = None,
        *,
        chat: dict[str, Any] | None = None,
        user: dict[str, Any] | None = None,
        message_id: int | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """A `message` update; `fields` adds voice/photo/caption/forward_origin/entities…"""
        message: dict[str, Any] = {
            "message_id": message_id if message_id is not None else next(self._message_ids),
            "date": int(time.time()),
            "chat": chat or {"id": self.chat_id, "type": "private", "first_name": "Ada"},
            "from": user or self.user,
            **fields,
        }
        if text is not None:
            message["text"] = text
        return {"message": message}

    def album(
        self,
        items: Sequence[dict[str, Any]],
        *,
        caption: str | None = None,
        group: str = "13579",
        **fields: Any,
    ) -> list[dict[str, Any]]:
        """The updates of one media group, in the order Telegram sends them: each of
        `items` (`{"photo": [...]}` or `{"document": {...}}`) is its own message, the
        first carries the caption; `fields` go on every part (forward_origin, chat…)."""
        date = int(time.time())
        parts = []
        for index, item in enumerate(items):
            extra = {"caption": caption} if index == 0 and caption is not None else {}
            parts.append(self.message(media_group_id=group, date=date, **extra, **item, **fields))
        return parts

    def edited(self, text: str, message_id: int) -> dict[str, Any]:
        update = self.message(text, message_id=message_id, edit_date=int(time.time()))
        return {"edited_message": update["message"]}

    def press(
        self,
        data: str,
        *,
        message_id: int,
        user: dict[str, Any] | None = None,
        chat_id: int | None = None,
    ) -> dict[str, Any]:
        """A `callback_query` update: a press on a button of the bot's message `message_id`."""
        chat = chat_id if chat_id is not None else self.chat_id
        return {
            "callback_query": {
                "id": f"cq{next(self._message_ids)}",
                "from": user or self.user,
                "chat_instance": "ci1",
                "data": data,
                "message": {
                    "message_id": message_id,
                    "date": int(time.time()),
                    "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
                    "from": {"id": 1, "is_bot": True, "first_name": "Brainbot"},
                    "text": "…",
                },
            }
        }


def photo(file_id: str, width: int = 1280, height: int = 960) -> list[dict[str, Any]]:
    """The `photo` field of a message: a thumbnail and the full size `file_id`."""
    return [
        {"file_id": f"{file_id}-thumb", "file_unique_id": f"t{file_id}", "width": 90, "height": 68},
        {"file_id": file_id, "file_unique_id": f"u{file_id}", "width": width, "height": height},
    ]


def text_link(text: str, label: str, url: str) -> dict[str, Any]:
    """A `text_link` entity over the first `label` in `text`, its offset and length
    counted in UTF-16 code units as Telegram counts them (an emoji is two)."""
    start = text.index(label)
    return {
        "type": "text_link",
        "offset": len(text[:start].encode("utf-16-le")) // 2,
        "length": len(label.encode("utf-16-le")) // 2,
        "url": url,
    }
