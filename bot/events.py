"""Platform-neutral events and replies.

Adapters translate raw platform payloads into these and render `Reply` back into
platform UI. They are plain data: nothing here points back at an adapter. The seams
between the doors and the engine are typed here once: `EventHandler` (an event in,
the replies out), `MayUse` (asked before a sender's files are fetched) and `Deliver`
(a message sent later, which raises `NoRoute` for a platform not reachable here).
"""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

# What no record, note or commit can hold: NUL (valid UTF-8, but Postgres text refuses
# it) and a lone surrogate (no UTF-8 at all: a JSON "\ud800", a broken name).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]")
REPLACEMENT = "\ufffd"


def storable(text: str) -> str:
    """`text` with each character nothing can store replaced by U+FFFD (as a decoder
    shows a bad byte): what a door hands over is kept, never refused by the database."""
    return _UNSTORABLE.sub(REPLACEMENT, text)


def storable_json(value: Any) -> Any:
    """`value`, decoded JSON (a tool call's arguments), with every string `storable`."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(str(key)): storable_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable_json(item) for item in value]
    return value


def _storable_fields(item: object, *names: str) -> None:
    """Make the named string fields of a frozen event `storable` (at construction:
    every door builds its events, so this is where text enters)."""
    for name in names:
        value = getattr(item, name)
        if isinstance(value, str) and _UNSTORABLE.search(value):
            object.__setattr__(item, name, storable(value))


@dataclass(frozen=True, slots=True)
class Conversation:
    """Where a message came from and where the answer goes."""

    platform: str  # "slack" | "telegram" | "console"
    chat_id: str
    thread_id: str | None = None
    # One string per conversation (thread), for history and logs: made once, read by
    # the engine, the turn and the tools.
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _storable_fields(self, "platform", "chat_id", "thread_id")
        object.__setattr__(self, "key", f"{self.platform}:{self.chat_id}:{self.thread_id or ''}")


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sent an event: one platform identity."""

    platform: str
    id: str
    name: str = ""
    timezone: str | None = None  # IANA name when the platform knows it (Slack does)
    # Slack: the sender's own workspace, and whether it is another one than the bot's
    # (a Slack Connect guest); `slack:*` admits only the bot's own workspace.
    team: str | None = None
    foreign: bool = False
    # `platform:id`, the form `BRAINBOT_ALLOWED_USERS` uses: made once, read by the
    # engine, the access checks and the rate limit.
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _storable_fields(self, "platform", "id", "name", "timezone", "team")
        object.__setattr__(self, "key", f"{self.platform}:{self.id}")


AttachmentKind = Literal["voice", "audio", "photo", "document"]
# The files of one message that are read into its note (bot.enrich); the capture API
# takes no more in one request.
MAX_FILES = 10


def attachment_kind(mime: str) -> AttachmentKind:
    """What a file that names only its MIME type is (a form upload, a mail's part)."""
    if mime.startswith("image/"):
        return "photo"
    if mime.startswith("audio/"):
        return "audio"
    return "document"


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file that came with a message, already downloaded by the adapter."""

    kind: AttachmentKind
    data: bytes
    file_name: str
    mime_type: str | None = None

    def __post_init__(self) -> None:
        _storable_fields(self, "file_name", "mime_type")


@dataclass(frozen=True, slots=True)
class CaptureRequest:
    """What a door asks to keep, typed: the person's own words, the links and an
    optional category, title and tags (the files are the message's attachments). The
    API, MCP, mail, a `/capture` in any chat and the model's `capture` tool hand one to
    the same function (bot.capture), which decides what the capture is."""

    words: str = ""
    links: tuple[str, ...] = ()
    category: str = ""  # "" lets the words decide; a name that is no category is refused
    title: str = ""  # "" makes one from the words (or the file's name)
    tags: tuple[str, ...] = ()
    # How sure whoever chose `category` was: None, the person named it (it is honoured);
    # a model's guess below BRAINBOT_CONFIDENCE_THRESHOLD waits in the inbox.
    confidence: float | None = None
    # Frontmatter a caller that knows it sets (a model, an MCP client): (name, value).
    fields: tuple[tuple[str, str | None], ...] = ()

    def __post_init__(self) -> None:
        _storable_fields(self, "words", "category", "title")
        for name in ("links", "tags"):
            values = getattr(self, name)
            if any(_UNSTORABLE.search(v) for v in values):
                object.__setattr__(self, name, tuple(storable(v) for v in values))
        pairs = tuple((str(n), None if v is None else str(v)) for n, v in self.fields)
        if any(_UNSTORABLE.search(f"{n}{v or ''}") for n, v in pairs):
            pairs = tuple((storable(n), None if v is None else storable(v)) for n, v in pairs)
        object.__setattr__(self, "fields", pairs)  # as recorded: lists, read back


@dataclass(frozen=True, slots=True)
class InboundMessage:
    """A text (or voice/photo/file) message addressed to the bot."""

    event_id: str  # dedupe key: Slack event_id / client_msg_id, Telegram update_id
    conversation: Conversation
    sender: Sender
    text: str
    received_at: datetime
    attachments: tuple[Attachment, ...] = ()
    source: dict[str, str] = field(default_factory=dict)  # permalink, message id, forward origin
    raw: Any = field(default=None, compare=False, repr=False)
    # A door's typed capture (the API, mail): `text` then holds its words, for the log.
    capture: CaptureRequest | None = None

    def __post_init__(self) -> None:
        _storable_fields(self, "event_id", "text")
        if any(_UNSTORABLE.search(f"{k}{v}") for k, v in self.source.items()):
            object.__setattr__(self, "source", _storable_map(self.source))


def _storable_map(values: Mapping[str, Any]) -> dict[str, Any]:
    return {storable(k): storable(v) if isinstance(v, str) else v for k, v in values.items()}


def keyed_event_id(person_id: int, key: str) -> str:
    """The event id of a capture a token-vouched door (the API, MCP) files for a person:
    the client's idempotency key, cleaned and cut to 120 characters, so a call sent again
    is the same event and a later lookup by that key finds it; a fresh id without a key."""
    key = key.strip()
    return f"{person_id}:{_KEY_UNSAFE.sub('-', key)[:120] if key else secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A press on a button the bot rendered; `action` and `value` come from `Button`."""

    event_id: str
    conversation: Conversation
    sender: Sender
    action: str
    value: str
    received_at: datetime
    raw: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _storable_fields(self, "event_id", "action", "value")


Event = InboundMessage | ButtonPress


@dataclass(frozen=True, slots=True)
class Button:
    """One button. `action` + `value` must fit Telegram's 64-byte callback_data together."""

    label: str
    action: str  # "approve" | "reject" | "category" | "done" | "snooze" | "open" ...
    value: str  # an approval id, an entry id, a category name: short
    style: Literal["primary", "danger"] | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """What the bot says, in platform-neutral form.

    `text` is plain text (adapters escape it for their markup), where `**words**` are
    marked (a search hit's matched words): Slack shows them in mrkdwn bold, Telegram
    in <b>, the terminal as typed. `preview` is shown
    as a code block (an approval's diff). `notice` is a short status line (e.g. the
    LLM is down). With `replace`, the adapter edits the message whose button was
    pressed instead of sending a new one (and drops its old buttons). `not_kept` says
    the message was not recorded (over the rate limit): a caller that can send it
    again later (the capture API, mail in) does, instead of reading the words.
    """

    text: str
    buttons: tuple[Button, ...] = ()
    preview: str | None = None
    notice: str | None = None
    replace: bool = False
    not_kept: bool = False


# The engine's `handle`, as every door calls it: an event in, what to say out.
EventHandler = Callable[[Event], Awaitable[Sequence[Reply]]]
# Asked before anything is downloaded for a sender: a stranger's files are never fetched.
MayUse = Callable[[Sender], Awaitable[bool]]
# Sends a reply into a conversation later (a digest, a reminder, "couldn't fetch the
# page"), through whichever running adapter serves the conversation's platform.
Deliver = Callable[[Conversation, Reply], Awaitable[object]]


class NoRoute(Exception):
    """Raised by a `Deliver` for a platform this process cannot reach."""

    def __init__(self, platform: str) -> None:
        super().__init__(f"cannot reach {platform} from here (not configured or not running)")
        self.platform = platform


V = TypeVar("V")


class Recent(Generic[V]):
    """The last `size` values kept, by key (the oldest forgotten first): what a process
    remembers of recent events without a trip to storage."""

    def __init__(self, size: int = 4096) -> None:
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._size = size

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def get(self, key: Hashable) -> V | None:
        return self._items.get(key)

    def keep(self, key: Hashable, value: V) -> None:
        self._items[key] = value
        if len(self._items) > self._size:
            self._items.popitem(last=False)


class RecentEvents:
    """The keys of the events seen last, at most `size` (the oldest forgotten first):
    a platform's retry or a second delivery is recognised without a trip to storage."""

    def __init__(self, size: int = 4096) -> None:
        self._keys: Recent[None] = Recent(size)

    def first_time(self, *keys: Hashable) -> bool:
        """Remember every one of `keys` (a delivery may be known by several); False when
        any was seen already."""
        fresh = True
        for key in keys:
            if key in self._keys:
                fresh = False
            else:
                self._keys.keep(key, None)
        return fresh
