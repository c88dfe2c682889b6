"""Raw Slack payloads → bot events. The one place that reads Slack's JSON.

Parsing happens in two steps: `parse_*` runs inside the 3-second acknowledgement
window and only reads the payload (no network), producing an `Incoming`; the
sender's profile is looked up afterwards and `to_event` completes the event.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from adapters.labelled_links import labelled_link
from bot.commands import command_names
from bot.events import Attachment, ButtonPress, Conversation, Event, InboundMessage, Sender

from .render import decode_action_id
from .settings import PLATFORM

log = logging.getLogger(__name__)

# Message subtypes that still carry a person's own words.
_USER_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})
_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where replies to one payload go."""

    channel: str
    thread_ts: str | None = None
    message_ts: str | None = None  # the message whose button was pressed
    response_url: str | None = None
    ephemeral: bool = False  # only response_url can reach an ephemeral message
    via_response_url: bool = False  # slash commands answer privately
    private_to: str | None = None  # only this user sees the replies (a save's confirmation)


@dataclass(frozen=True, slots=True)
class FileRef:
    """A file shared with a message, still on Slack's servers."""

    name: str
    url: str
    kind: Literal["voice", "audio", "photo", "document"]
    mime_type: str | None
    size: int


@dataclass(frozen=True, slots=True)
class Incoming:
    """A payload the bot acts on, before the sender's profile is known. A `save` is
    someone's message kept for the person who asked (adapters.slack.save); its event id
    names the message and the person, `delivery_id` the payload Slack may send again."""

    kind: Literal["message", "button", "save"]
    event_id: str
    user_id: str
    origin: Origin
    received_at: datetime
    text: str = ""
    action: str = ""
    value: str = ""
    source: dict[str, str] = field(default_factory=dict)
    files: tuple[FileRef, ...] = ()
    raw: Any = field(default=None, compare=False, repr=False)
    delivery_id: str = ""

    @property
    def user_team(self) -> str | None:
        """The workspace the sender belongs to, as the payload says (Slack Connect guests
        come from another one than the bot's)."""
        body = self.raw if isinstance(self.raw, dict) else {}
        event = body.get("event") or {}
        user = body.get("user") if isinstance(body.get("user"), dict) else {}
        team = event.get("user_team") or (user or {}).get("team_id") or body.get("user_team")
        return str(team) if team else None

    def to_event(self, sender: Sender, attachments: tuple[Attachment, ...] = ()) -> Event:
        """The engine event, with the sender and the downloaded files added by the adapter."""
        conversation = Conversation(PLATFORM, self.origin.channel, self.origin.thread_ts)
        if self.kind == "button":
            return ButtonPress(
                event_id=self.event_id,
                conversation=conversation,
                sender=sender,
                action=self.action,
                value=self.value,
                received_at=self.received_at,
                raw=self.raw,
            )
        return InboundMessage(
            event_id=self.event_id,
            conversation=conversation,
            sender=sender,
            text=self.text,
            received_at=self.received_at,
            attachments=attachments,
            source=self.source,
            raw=self.raw,
        )


def file_refs(event: dict[str, Any]) -> tuple[FileRef, ...]:
    """The downloadable files of a message event (Slack voice clips count as voice notes)."""
    refs: list[FileRef] = []
    for file in event.get("files") or []:
        url = file.get("url_private_download") or file.get("url_private")
        if not url:
            continue
        mime = file.get("mimetype") or None
        kind: Literal["voice", "audio", "photo", "document"] = "document"
        if file.get("subtype") == "slack_audio":
            kind = "voice"
        elif mime and mime.startswith("audio/"):
            kind = "audio"
        elif mime and mime.startswith("image/"):
            kind = "photo"
        name = file.get("name") or file.get("title") or file.get("id") or "file"
        refs.append(FileRef(name, url, kind, mime, int(file.get("size") or 0)))
    return tuple(refs)


def sender_from_profile(user: dict[str, Any]) -> Sender:
    """A Sender from a users.info `user` object: display name first, then real name."""
    profile = user.get("profile") or {}
    name = (
        profile.get("display_name")
        or profile.get("real_name")
        or user.get("real_name")
        or user.get("name")
        or user.get("id", "")
    )
    return Sender(PLATFORM, user["id"], name, user.get("tz") or None, user.get("team_id") or None)


def permalink(team_url: str | None, channel: str, ts: str, thread_ts: str | None = None) -> str:
    """Slack's permalink format, built locally instead of a chat.getPermalink round trip."""
    if not team_url:
        return ""
    link = f"{team_url.rstrip('/')}/archives/{channel}/p{ts.replace('.', '')}"
    if thread_ts and thread_ts != ts:
        link += f"?thread_ts={thread_ts}&cid={channel}"
    return link


def slack_to_plain(text: str, *, bot_user_id: str | None = None) -> str:
    """Slack's wire text as a person typed it: the bot's mention removed, links and
    channel/user references readable, `&amp;` `&lt;` `&gt;` unescaped."""

    def link(match: re.Match[str]) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith("@"):
            return "" if target[1:] == bot_user_id else f"@{label or target[1:]}"
        if target.startswith("#"):
            return f"#{label or target[1:]}"
        if target.startswith("!"):
            return f"@{label or target[1:].split('^')[0]}"
        return labelled_link(label or "", target)  # an auto-linked url is just the url

    plain = _LINK.sub(link, text)
    plain = re.sub(r"[ \t]{2,}", " ", plain).strip()
    return plain.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _received_at(ts: str | None) -> datetime:
    try:
        return datetime.fromtimestamp(float(ts or ""), tz=UTC)
    except ValueError:
        return datetime.now(tz=UTC)


def _message_source(
    team_url: str | None, channel: str, ts: str, thread: str | None
) -> dict[str, str]:
    return {
        "platform": PLATFORM,
        "channel": channel,
        "ts": ts,
        "permalink": permalink(team_url, channel, ts, thread),
    }


def parse_message(
    body: dict[str, Any], *, bot_user_id: str | None, team_url: str | None
) -> Incoming | None:
    """A direct message (`message` with channel_type im), or None with a debug line why not."""
    event = body.get("event") or {}
    subtype = event.get("subtype")
    if subtype not in _USER_SUBTYPES:
        log.debug("ignoring message subtype %s", subtype)
        return None
    if event.get("bot_id") or (bot_user_id and event.get("user") == bot_user_id):
        log.debug("ignoring a bot's message in %s", event.get("channel"))
        return None
    if event.get("channel_type") != "im":
        log.debug(
            "ignoring message in %s (%s): not a DM", event.get("channel"), event.get("channel_type")
        )
        return None
    if not event.get("user"):
        log.debug("ignoring message without a user")
        return None
    # A DM answered inside a thread stays in that thread; plain DMs have none.
    return _said(body, event.get("thread_ts"), bot_user_id=bot_user_id, team_url=team_url)


def parse_mention(
    body: dict[str, Any], *, bot_user_id: str | None, team_url: str | None
) -> Incoming | None:
    """An `app_mention`: the mention stripped, the reply going into the message's thread."""
    event = body.get("event") or {}
    if event.get("bot_id") or not event.get("user"):
        log.debug("ignoring a bot's mention in %s", event.get("channel"))
        return None
    thread = event.get("thread_ts") or event["ts"]
    return _said(body, thread, bot_user_id=bot_user_id, team_url=team_url)


def _said(
    body: dict[str, Any], thread: str | None, *, bot_user_id: str | None, team_url: str | None
) -> Incoming:
    """What a person said to the bot, in a DM or with a mention: its words and files."""
    event = body["event"]
    channel, ts = event["channel"], event["ts"]
    return Incoming(
        kind="message",
        event_id=body.get("event_id") or event.get("client_msg_id") or f"{channel}:{ts}",
        user_id=event["user"],
        origin=Origin(channel, thread_ts=thread),
        received_at=_received_at(ts),
        text=slack_to_plain(event.get("text") or "", bot_user_id=bot_user_id),
        source=_message_source(team_url, channel, ts, thread),
        files=file_refs(event),
        raw=body,
    )


def parse_button(body: dict[str, Any]) -> Incoming | None:
    """A `block_actions` press on one of our buttons (action_id `bb:<action>`)."""
    actions = body.get("actions") or []
    if not actions:
        return None
    pressed = actions[0]
    action = decode_action_id(pressed.get("action_id", ""))
    if action is None:
        log.debug("ignoring foreign action %s", pressed.get("action_id"))
        return None
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    user = (body.get("user") or {}).get("id")
    if not channel or not user:
        log.debug("ignoring button press without channel or user")
        return None
    action_ts = pressed.get("action_ts")
    return Incoming(
        kind="button",
        event_id=body.get("trigger_id") or f"{channel}:{action_ts}:{user}",
        user_id=user,
        origin=Origin(
            channel,
            thread_ts=message.get("thread_ts") or container.get("thread_ts"),
            message_ts=container.get("message_ts") or message.get("ts"),
            response_url=body.get("response_url"),
            ephemeral=bool(container.get("is_ephemeral")),
        ),
        received_at=_received_at(action_ts),
        action=action,
        value=pressed.get("value") or "",
        raw=body,
    )


def parse_command(body: dict[str, Any]) -> Incoming | None:
    """`/brain list` → the engine's `/list`; `/brain some thought` → that text;
    a bare `/brain` asks for `/help`."""
    channel, user = body.get("channel_id"), body.get("user_id")
    if not channel or not user:
        return None
    words = (body.get("text") or "").strip()
    first = words.lstrip("/").split(" ", 1)[0].lower()
    # `/brain WORD ...` is brainbot's `/WORD` for each of its commands; other text a note.
    text = f"/{words.lstrip('/')}" if first in command_names() else words or "/help"
    return Incoming(
        kind="message",
        event_id=body.get("trigger_id") or f"{channel}:{user}:{words}",
        user_id=user,
        origin=Origin(channel, response_url=body.get("response_url"), via_response_url=True),
        received_at=datetime.now(tz=UTC),
        text=slack_to_plain(text),
        source={"platform": PLATFORM, "channel": channel},
        raw=body,
    )
