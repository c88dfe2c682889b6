"""Builders for the update JSON Telegram sends, with realistic defaults, for
queueing on the fake Bot API or POSTing to the webhook route."""

from __future__ import annotations

import itertools
import time
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
