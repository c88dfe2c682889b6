"""Slack payloads as Slack sends them (Events API, block_actions, slash commands),
and signed HTTP delivery of them to a bot, for tests and benchmarks."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from typing import Any
from urllib.parse import urlencode

import aiohttp

from tests.fakes.slack_api import BOT_USER_ID, TEAM_ID

SIGNING_SECRET = "fake-signing-secret"
DM_CHANNEL = "D0ALICE"
CHANNEL = "C0GENERAL"

_numbers = itertools.count(1)


def _ts() -> str:
    return f"{time.time():.6f}"


def dm_event(
    text: str, *, user: str = "U0ALICE", channel: str = DM_CHANNEL, **extra: Any
) -> dict[str, Any]:
    """An Events API envelope of a direct message to the bot."""
    n = next(_numbers)
    event = {
        "type": "message",
        "channel_type": "im",
        "channel": channel,
        "user": user,
        "text": text,
        "ts": _ts(),
        "client_msg_id": f"msg-{n}",
        **extra,
    }
    return envelope(event, event_id=f"Ev{n:08d}")


def mention_event(
    text: str,
    *,
    user: str = "U0ALICE",
    channel: str = CHANNEL,
    thread_ts: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An `app_mention` in a channel; `text` gets the bot's mention in front."""
    n = next(_numbers)
    event: dict[str, Any] = {
        "type": "app_mention",
        "channel": channel,
        "user": user,
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": _ts(),
        **extra,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return envelope(event, event_id=f"Ev{n:08d}")


def envelope(event: dict[str, Any], *, event_id: str) -> dict[str, Any]:
    """Wrap an inner event the way the Events API delivers it."""
    return {
        "token": "unused",
        "team_id": TEAM_ID,
        "api_app_id": "A1",
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }


def block_actions(
    *,
    action_id: str,
    value: str,
    user: str = "U0ALICE",
    channel: str = DM_CHANNEL,
    message_ts: str,
    thread_ts: str | None = None,
    response_url: str = "",
    ephemeral: bool = False,
) -> dict[str, Any]:
    """A `block_actions` payload for a button press on message `message_ts`."""
    n = next(_numbers)
    message: dict[str, Any] = {"type": "message", "ts": message_ts, "text": "…"}
    if thread_ts:
        message["thread_ts"] = thread_ts
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "acme"},
        "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
        "api_app_id": "A1",
        "token": "unused",
        "container": {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": ephemeral,
        },
        "trigger_id": f"trigger-{n}",
        "channel": {"id": channel, "name": "directmessage"},
        "message": message,
        "response_url": response_url,
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": f"b{n}",
                "value": value,
                "action_ts": _ts(),
                "text": {"type": "plain_text", "text": "…"},
            }
        ],
    }


def message_shortcut(
    message: dict[str, Any],
    *,
    user: str = "U0ALICE",
    channel: str = CHANNEL,
    channel_name: str = "general",
    response_url: str = "",
) -> dict[str, Any]:
    """A `message_action` payload: the "Save to brainbot" shortcut on `message`."""
    n = next(_numbers)
    return {
        "type": "message_action",
        "token": "unused",
        "action_ts": _ts(),
        "team": {"id": TEAM_ID, "domain": "acme"},
        "user": {"id": user, "username": user.lower(), "name": user.lower(), "team_id": TEAM_ID},
        "channel": {"id": channel, "name": channel_name},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": "save_to_brainbot",
        "trigger_id": f"trigger-save-{n}",
        "response_url": response_url,
        "message_ts": message["ts"],
        "message": message,
    }


def reaction_event(
    ts: str, *, reaction: str = "brain", user: str = "U0ALICE", channel: str = CHANNEL
) -> dict[str, Any]:
    """A `reaction_added` on message `ts`: only the channel and ts, as Slack sends it."""
    n = next(_numbers)
    event = {
        "type": "reaction_added",
        "user": user,
        "reaction": reaction,
        "item_user": "U0BOB",
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": _ts(),
    }
    return envelope(event, event_id=f"Ev{n:08d}")


def slash_command(text: str, *, response_url: str, user: str = "U0ALICE") -> dict[str, str]:
    """A `/brain` slash command as form fields."""
    n = next(_numbers)
    return {
        "token": "unused",
        "team_id": TEAM_ID,
        "channel_id": DM_CHANNEL,
        "user_id": user,
        "command": "/brain",
        "text": text,
        "response_url": response_url,
        "trigger_id": f"trigger-cmd-{n}",
        "api_app_id": "A1",
    }


def sign(
    body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> dict[str, str]:
    """Slack's request signature headers for `body`."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest}"}


def event_body(payload: dict[str, Any]) -> tuple[str, str]:
    """(body, content type) of an Events API request."""
    return json.dumps(payload), "application/json"


def interactive_body(payload: dict[str, Any]) -> tuple[str, str]:
    """(body, content type) of an interactivity request: form field `payload`."""
    return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"


def command_body(fields: dict[str, str]) -> tuple[str, str]:
    """(body, content type) of a slash command request."""
    return urlencode(fields), "application/x-www-form-urlencoded"


async def post_signed(
    session: aiohttp.ClientSession,
    url: str,
    body_and_type: tuple[str, str],
    *,
    secret: str = SIGNING_SECRET,
    timestamp: int | None = None,
    retry_num: int | None = None,
) -> tuple[int, str]:
    """POST a signed request the way Slack does; returns (status, response text)."""
    body, content_type = body_and_type
    headers = {"Content-Type": content_type, **sign(body, secret=secret, timestamp=timestamp)}
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    async with session.post(url, data=body.encode(), headers=headers) as response:
        return response.status, await response.text()
