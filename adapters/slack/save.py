""" "Save this" in Slack: someone's message kept in the vault of the person who asked,
by the "Save to brainbot" message shortcut or by a reaction with the save emoji.

Parsing reads the payload only (it runs inside the 3-second acknowledgement): the
shortcut carries the message, a reaction only its channel and ts. `read_saved` then
fetches what is missing (conversations.replies: the message, and its replies when it
is a thread's root) and the authors' names. The text goes to the engine as
`/capture …`, so a saved message is always filed as a note, never answered as a
question. The event id names the message and the person, not the delivery: the
same message saved twice by the same person is a duplicate to the engine, one note.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from .settings import PLATFORM
from .translate import Incoming, Origin, file_refs, permalink, slack_to_plain
from .webapi import SlackCallError, SlackWebAPI

log = logging.getLogger(__name__)

SHORTCUT = "save_to_brainbot"  # the callback_id in manifest.yaml
THREAD_LIMIT = 200  # messages of a thread read; a longer thread keeps its first ones
ALREADY_SAVED = "Already saved: I keep each message once."
NOTHING_TO_SAVE = "That message has no text or files I can keep."
UNREADABLE = (
    "I couldn't read that message (Slack said: {error}). "
    "Invite me to the channel with /invite @brainbot and try again."
)


def save_event_id(channel: str, ts: str, user: str) -> str:
    """One id per message and person: saving it again is a duplicate."""
    return f"save:{channel}:{ts}:{user}"


def _request(
    body: dict[str, Any],
    *,
    channel: str,
    ts: str,
    user: str,
    delivery: str,
    channel_name: str | None,
) -> Incoming:
    return Incoming(
        kind="save",
        event_id=save_event_id(channel, ts, user),
        delivery_id=delivery,
        user_id=user,
        origin=Origin(channel, response_url=body.get("response_url"), private_to=user),
        received_at=datetime.now(tz=UTC),
        source={
            "platform": PLATFORM,
            "channel": channel,
            "ts": ts,
            "saved_from": f"#{channel_name}" if channel_name else channel,
        },
        raw=body,
    )


def parse_shortcut(body: dict[str, Any]) -> Incoming | None:
    """A `message_action` of the save shortcut: the message is in the payload."""
    message = body.get("message") or {}
    channel = body.get("channel") or {}
    user = (body.get("user") or {}).get("id")
    ts = message.get("ts") or body.get("message_ts")
    if not channel.get("id") or not user or not ts:
        log.debug("ignoring a save shortcut without channel, user or message")
        return None
    name = channel.get("name")
    return _request(
        body,
        channel=channel["id"],
        ts=ts,
        user=user,
        delivery=body.get("trigger_id") or f"{channel['id']}:{ts}:{user}:{body.get('action_ts')}",
        # Slack names a DM "directmessage": no channel name worth keeping.
        channel_name=name if name and name not in ("directmessage", "privategroup") else None,
    )


def parse_reaction(body: dict[str, Any], *, emoji: str, bot_user_id: str | None) -> Incoming | None:
    """A `reaction_added` with the save emoji (any skin tone) on a message."""
    event = body.get("event") or {}
    item = event.get("item") or {}
    reaction = str(event.get("reaction") or "").split("::", 1)[0]
    user = event.get("user")
    if reaction != emoji or item.get("type") != "message":
        return None
    if not user or user == bot_user_id or not item.get("channel") or not item.get("ts"):
        return None
    return _request(
        body,
        channel=item["channel"],
        ts=item["ts"],
        user=user,
        delivery=body.get("event_id") or f"{item['channel']}:{item['ts']}:{user}:{emoji}",
        channel_name=None,
    )


async def read_saved(api: SlackWebAPI, incoming: Incoming, team_url: str | None) -> Incoming | str:
    """The save with its words, files and source filled in, or what to tell the person
    when there is nothing to save. Replies of a thread come after its root."""
    channel, ts = incoming.origin.channel, incoming.source["ts"]
    body = incoming.raw if isinstance(incoming.raw, dict) else {}
    message: dict[str, Any] | None = body.get("message")
    thread: list[dict[str, Any]] = []
    if message is None or _is_root(message):
        try:
            thread = await api.thread(channel, ts, limit=THREAD_LIMIT)
        except SlackCallError as failure:
            if message is None:
                return UNREADABLE.format(error=failure.error)
            log.warning("saving %s:%s without its thread: %s", channel, ts, failure.error)
        found = next((m for m in thread if m.get("ts") == ts), None)
        message = message or found
        if message is None:
            return UNREADABLE.format(error="message_not_found")
    replies = [m for m in thread if m.get("ts") != ts] if _is_root(message) else []
    words = _words(message)
    if not words:
        return NOTHING_TO_SAVE
    lines = [f"- {await _author(api, reply)}: {_words(reply)}" for reply in replies]
    text = words + ("\n\nThread:\n" + "\n".join(lines) if lines else "")
    source = {
        **incoming.source,
        "saved_author": await _author(api, message),
        "permalink": permalink(team_url, channel, ts, message.get("thread_ts")),
    }
    files = tuple(ref for m in (message, *replies) for ref in file_refs(m))
    return replace(incoming, text=f"/capture {text}", files=files, source=source)


def _is_root(message: dict[str, Any]) -> bool:
    """A thread's first message (a message outside any thread has no thread_ts)."""
    return message.get("thread_ts") == message.get("ts") and bool(message.get("thread_ts"))


def _words(message: dict[str, Any]) -> str:
    """The message as a person reads it; its files' names when it has only files."""
    text = slack_to_plain(str(message.get("text") or ""))
    if text:
        return text
    return ", ".join(ref.name for ref in file_refs(message))


async def _author(api: SlackWebAPI, message: dict[str, Any]) -> str:
    user = message.get("user")
    if user and not message.get("bot_id"):
        return (await api.sender(str(user))).name
    profile = message.get("bot_profile") or {}
    return str(message.get("username") or profile.get("name") or user or "someone")
