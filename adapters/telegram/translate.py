"""Telegram Update → bot.events, in one place.

Pure: no network. Files are described by `FileRef`s; the adapter downloads them
and fills `InboundMessage.attachments` before the engine sees the event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from telegram import (
    Message,
    MessageEntity,
    MessageOrigin,
    MessageOriginChannel,
    MessageOriginChat,
    MessageOriginHiddenUser,
    MessageOriginUser,
    Update,
    User,
)
from telegram.constants import ChatType

from adapters.labelled_links import labelled_link
from adapters.telegram.render import parse_callback_data
from adapters.telegram.settings import PLATFORM
from bot.events import ButtonPress, Conversation, InboundMessage, Sender

UNSUPPORTED = (
    "I can file text, voice notes, audio, photos and documents — not this kind of message."
)


@dataclass(frozen=True, slots=True)
class FileRef:
    """A file to download before the message goes to the engine."""

    kind: Literal["voice", "audio", "photo", "document"]
    file_id: str
    file_name: str
    mime_type: str | None
    file_size: int | None  # as Telegram reported it in the message, when it did


@dataclass(frozen=True, slots=True)
class Incoming:
    """A message for the engine; `files` still to be downloaded. `media_group` is set on
    each part of an album (photos or files sent together), which arrive one by one.

    In a group only the captioned part of an album names the bot, so the other parts
    come here too, not `addressed`: the album goes to the engine if one part is.
    """

    event: InboundMessage
    files: tuple[FileRef, ...]
    reply_to: int | None  # in groups, answers quote the message that addressed the bot
    media_group: str | None = None
    addressed: bool = True
    duplicate: str | None = None  # told when the engine had this event already (a /save)


@dataclass(frozen=True, slots=True)
class Press:
    """A button press; `message_id` is the message that carried the button."""

    event: ButtonPress
    message_id: int


@dataclass(frozen=True, slots=True)
class Skip:
    """Not for the engine. `answer` is a polite reply to send instead, if any."""

    reason: str
    conversation: Conversation | None = None
    answer: str | None = None


Translation = Incoming | Press | Skip


def translate(update: Update, bot_username: str, bot_id: int) -> Translation:
    """Decide what an update means for brainbot."""
    if update.callback_query is not None:
        return _translate_press(update)
    if update.edited_message is not None:
        # Edits would need matching the earlier capture; the first version stays filed.
        return Skip("edited message")
    message = update.message
    if message is None:
        return Skip("not a message or button press")
    return _translate_message(update.update_id, message, bot_username, bot_id)


def _translate_message(
    update_id: int, message: Message, bot_username: str, bot_id: int
) -> Translation:
    user = message.from_user
    if user is None or user.is_bot:
        return Skip("not sent by a person")
    conversation = conversation_of(message)
    private = message.chat.type == ChatType.PRIVATE
    addressed = private or _addressed_to_bot(message, bot_username, bot_id)
    files = files_of(message)
    album = message.media_group_id if files else None
    if not addressed and album is None:
        return Skip("group message not addressed to the bot")

    text = _strip_bot_name(with_hidden_links(message), bot_username)
    if not files and not text:
        if message.effective_attachment is not None:
            return Skip("unsupported content", conversation, UNSUPPORTED)
        return Skip("service message")

    source = {
        "platform": PLATFORM,
        "chat_id": str(message.chat_id),
        "message_id": str(message.message_id),
        **_forward_source(message.forward_origin),
    }
    event = InboundMessage(
        event_id=str(update_id),
        conversation=conversation,
        sender=sender_of(user),
        text=text,
        received_at=message.date,
        source=source,
        raw=message,
    )
    reply_to = None if private else message.message_id
    return Incoming(event, files, reply_to, album, addressed)


def _translate_press(update: Update) -> Translation:
    query = update.callback_query
    assert query is not None
    message = query.message
    decoded = parse_callback_data(query.data)
    if message is None:
        return Skip("button press on an inline message")
    conversation = Conversation(PLATFORM, str(message.chat.id), _thread(message))
    if decoded is None:
        return Skip("button press with data brainbot did not make")
    action, value = decoded
    event = ButtonPress(
        event_id=str(update.update_id),
        conversation=conversation,
        sender=sender_of(query.from_user),
        action=action,
        value=value,
        received_at=datetime.now(UTC),
        raw=query,
    )
    return Press(event, message.message_id)


def conversation_of(message: Message) -> Conversation:
    """The chat a message is in (and its forum topic): where replies to it go."""
    return Conversation(PLATFORM, str(message.chat_id), _thread(message))


def _thread(message: object) -> str | None:
    # Only forum topics are threads a reply must stay in; reply chains are not.
    if isinstance(message, Message) and message.is_topic_message and message.message_thread_id:
        return str(message.message_thread_id)
    return None


def sender_of(user: User) -> Sender:
    """A Telegram user as brainbot's sender, named as Telegram shows them."""
    return Sender(PLATFORM, str(user.id), user.full_name or user.username or str(user.id))


def _addressed_to_bot(message: Message, bot_username: str, bot_id: int) -> bool:
    """In groups: a reply to the bot, an @mention of it, or a /command@bot."""
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and replied.from_user.id == bot_id:
        return True
    handle = f"@{bot_username}".lower()
    kinds: list[str | None] = [
        MessageEntity.MENTION,
        MessageEntity.TEXT_MENTION,
        MessageEntity.BOT_COMMAND,
    ]
    entities = (
        message.parse_entities(kinds) if message.text else message.parse_caption_entities(kinds)
    )
    for entity, value in entities.items():
        if entity.type == MessageEntity.TEXT_MENTION:
            if entity.user is not None and entity.user.id == bot_id:
                return True
        elif value.lower() == handle or value.lower().endswith(handle):
            return True
    return False


def with_hidden_links(message: Message) -> str:
    """The text (or caption) with each hidden link shown as Slack's are:
    `read [this](https://x.org)` → `read this (https://x.org)`.

    Entity offsets count UTF-16 code units (an emoji is two), so the text is cut
    in that encoding. `tg://` links (a user, a message inside Telegram) keep
    only their words: they open nowhere else.
    """
    if message.text is not None:
        text, entities = message.text, message.entities
    else:
        text, entities = message.caption or "", message.caption_entities
    links = sorted(
        (e for e in entities if e.type == MessageEntity.TEXT_LINK and e.url),
        key=lambda entity: entity.offset,
    )
    if not links:
        return text
    units = text.encode("utf-16-le")
    parts: list[str] = []
    done = 0
    for link in links:
        start, end = 2 * link.offset, 2 * (link.offset + link.length)
        if start < done:
            continue  # overlaps the link before it: Telegram never sends that
        label = units[start:end].decode("utf-16-le", errors="replace")
        url = link.url or ""
        parts.append(units[done:start].decode("utf-16-le", errors="replace"))
        parts.append(label if url.startswith("tg:") else labelled_link(label, url))
        done = end
    parts.append(units[done:].decode("utf-16-le", errors="replace"))
    return "".join(parts)


def _strip_bot_name(text: str, bot_username: str) -> str:
    """`/list@bot x` → `/list x`; `@bot buy milk` → `buy milk`."""
    name = re.escape(bot_username)
    text = re.sub(rf"^(/\w+)@{name}\b", r"\1", text.strip(), flags=re.IGNORECASE)
    return re.sub(rf"\s*@{name}\b", "", text, flags=re.IGNORECASE).strip()


def files_of(message: Message) -> tuple[FileRef, ...]:
    """The files a message brings (voice, audio, photo, document, video), not yet
    downloaded; a video is kept as a document, its sound heard where voice notes are."""
    stamp = message.date.strftime("%Y%m%d-%H%M%S")
    if message.voice is not None:
        voice = message.voice
        mime = voice.mime_type or "audio/ogg"
        return (FileRef("voice", voice.file_id, f"voice-{stamp}.ogg", mime, voice.file_size),)
    if message.audio is not None:
        audio = message.audio
        name = audio.file_name or f"audio-{stamp}.mp3"
        return (FileRef("audio", audio.file_id, name, audio.mime_type, audio.file_size),)
    if message.photo:
        # Telegram sends every size it made; the largest is the one worth keeping.
        photo = max(message.photo, key=lambda size: size.width * size.height)
        name = f"photo-{stamp}.jpg"
        return (FileRef("photo", photo.file_id, name, "image/jpeg", photo.file_size),)
    if message.video is not None or message.video_note is not None:
        video = message.video or message.video_note
        assert video is not None
        mime = getattr(video, "mime_type", None) or "video/mp4"  # a round video note has none
        name = getattr(video, "file_name", None) or f"video-{stamp}.mp4"
        return (FileRef("document", video.file_id, name, mime, video.file_size),)
    if message.document is not None:
        doc = message.document
        name = doc.file_name or f"document-{stamp}"
        return (FileRef("document", doc.file_id, name, doc.mime_type, doc.file_size),)
    return ()


def _forward_source(origin: MessageOrigin | None) -> dict[str, str]:
    """Who a forwarded message came from, as `source` fields."""
    if origin is None:
        return {}
    fields = {"forwarded_at": origin.date.isoformat()}
    if isinstance(origin, MessageOriginUser):
        fields["forwarded_from"] = sender_of(origin.sender_user).name
    elif isinstance(origin, MessageOriginHiddenUser):
        fields["forwarded_from"] = origin.sender_user_name
    elif isinstance(origin, MessageOriginChat):
        fields["forwarded_from"] = origin.sender_chat.effective_name or str(origin.sender_chat.id)
    elif isinstance(origin, MessageOriginChannel):
        fields["forwarded_from"] = origin.chat.effective_name or str(origin.chat.id)
        if origin.chat.username:
            fields["forwarded_link"] = f"https://t.me/{origin.chat.username}/{origin.message_id}"
    author = getattr(origin, "author_signature", None)
    if author:
        fields["forwarded_author"] = author
    return fields
