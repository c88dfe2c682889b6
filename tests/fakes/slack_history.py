"""What the fake Slack knows of channel messages: the messages people wrote (with
their threads), read back by conversations.replies, and the ephemeral messages the
bot showed with chat.postEphemeral, answered the way the Web API answers."""

from __future__ import annotations

import base64
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

_written = itertools.count(1)


@dataclass
class Ephemeral:
    """A message only `user` saw in `channel`."""

    channel: str
    user: str
    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    thread_ts: str | None = None


class ChannelHistory:
    """Mixed into FakeSlack: `add_message` writes as a person; the bot reads it back."""

    def __init__(self) -> None:
        self.history: dict[str, list[dict[str, Any]]] = {}  # channel -> messages, oldest first
        self.ephemerals: list[Ephemeral] = []
        self.outside: set[str] = set()  # channels the bot is not in: not_in_channel

    def add_message(
        self,
        channel: str,
        user: str,
        text: str,
        *,
        thread_ts: str | None = None,
        files: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """A message by `user` (a reply when `thread_ts` names a root); returns it as
        Slack's payloads carry it (the root's reply count is kept up to date)."""
        ts = f"1763600000.{next(_written):06d}"
        message: dict[str, Any] = {
            "type": "message",
            "user": user,
            "text": text,
            "ts": ts,
            "team": "T00000001",
            "client_msg_id": f"written-{ts}",
        }
        if files:
            message.update(files=files, upload=False, subtype="file_share")
        if thread_ts:
            root = self._find(channel, thread_ts)
            assert root is not None, "no such thread root"
            root["thread_ts"] = thread_ts
            root["reply_count"] = root.get("reply_count", 0) + 1
            root["latest_reply"] = ts
            message.update(thread_ts=thread_ts, parent_user_id=root["user"])
        self.history.setdefault(channel, []).append(message)
        return message

    def _find(self, channel: str, ts: str) -> dict[str, Any] | None:
        return next((m for m in self.history.get(channel, []) if m["ts"] == ts), None)

    def _conversations_replies(self, args: dict[str, Any]) -> dict[str, Any]:
        """The thread of message `ts` (root first), a page of at most `limit`; a message
        outside any thread comes alone."""
        channel, ts = str(args.get("channel") or ""), str(args.get("ts") or "")
        if channel in self.outside:
            return {"ok": False, "error": "not_in_channel"}
        if channel not in self.history:
            return {"ok": False, "error": "channel_not_found"}
        message = self._find(channel, ts)
        if message is None:
            return {"ok": False, "error": "thread_not_found"}
        root = message.get("thread_ts") or ts
        thread = [m for m in self.history[channel] if (m.get("thread_ts") or m["ts"]) == root]
        limit = int(args.get("limit") or 1000)
        cursor = str(args.get("cursor") or "")
        start = int(base64.b64decode(cursor).decode().removeprefix("at:")) if cursor else 0
        end = start + limit
        more = end < len(thread)
        return {
            "ok": True,
            "messages": json.loads(json.dumps(thread[start:end])),
            "has_more": more,
            "response_metadata": {
                "next_cursor": base64.b64encode(f"at:{end}".encode()).decode() if more else ""
            },
        }

    def _chat_postEphemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        error = self._message_errors(args)  # type: ignore[attr-defined]  # FakeSlack's
        if error:
            return dict(error)
        channel, user = str(args.get("channel") or ""), str(args.get("user") or "")
        if channel in self.outside or not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not user:
            return {"ok": False, "error": "user_not_found"}
        self.ephemerals.append(
            Ephemeral(channel, user, args["text"], args["blocks"], args.get("thread_ts"))
        )
        return {"ok": True, "message_ts": f"1763683300.{len(self.ephemerals):06d}"}
