"""`/save` in reply to a message: that message kept for the person who replied.

In a group the bot sees the message replied to inside the update
(`reply_to_message`), so nothing is fetched: its text or caption, its file, its
author and a link to it become a `/capture …` event from the person who asked, so it
is always filed as a note, never answered as a question. The event id names the
chat, the message and the person, not the update: saving the same message twice is a
duplicate to the engine, one note. In a group the note goes to the group's team vault
when it is one (the engine decides from the chat), else to the person's own.
"""

from __future__ import annotations

import re

from telegram import Message, Update
from telegram.constants import ChatType

from adapters.telegram.settings import PLATFORM
from adapters.telegram.translate import (
    Incoming,
    Skip,
    Translation,
    conversation_of,
    files_of,
    sender_of,
    translate,
    with_hidden_links,
)
from bot.events import InboundMessage

SAVE = re.compile(r"^/save(?:@(?P<bot>\w+))?(?:\s|$)", re.IGNORECASE)
USAGE = (
    "To keep a message, reply to it with /save: I file its text, photo or file in your "
    "notes, with who wrote it and a link to it."
)
NOTHING = "That message has no text or files I can keep."
ALREADY_SAVED = "Already saved: I keep each message once."


def translate_update(update: Update, bot_username: str, bot_id: int) -> Translation:
    """What an update means for brainbot: a `/save` first, else `translate`."""
    message = update.message
    if message is not None and message.text and SAVE.match(message.text):
        return translate_save(message, bot_username)
    return translate(update, bot_username, bot_id)


def translate_save(message: Message, bot_username: str) -> Translation:
    """`/save` (or `/save@thisbot`) replying to a message: that message, for its sender."""
    match = SAVE.match(message.text or "")
    assert match is not None, "not a /save"
    if match["bot"] and match["bot"].lower() != bot_username.lower():
        return Skip("a /save for another bot")
    user = message.from_user
    if user is None or user.is_bot:
        return Skip("not sent by a person")
    conversation = conversation_of(message)
    replied = message.reply_to_message
    # In a forum topic every message answers the topic's first (service) message.
    if replied is None or replied.forum_topic_created is not None:
        return Skip("/save without a message to save", conversation, USAGE)
    files = files_of(replied)
    words = with_hidden_links(replied)
    if not words and not files:
        return Skip("/save of a message without text or files", conversation, NOTHING)
    source = {
        "platform": PLATFORM,
        "chat_id": str(replied.chat_id),
        "message_id": str(replied.message_id),
        "saved_author": _author(replied),
        "saved_from": replied.chat.effective_name or str(replied.chat_id),
    }
    link = message_link(replied)
    if link:
        source["permalink"] = link
    text = words or ", ".join(ref.file_name for ref in files)
    event = InboundMessage(
        event_id=f"save:{replied.chat_id}:{replied.message_id}:{user.id}",
        conversation=conversation,
        sender=sender_of(user),
        text=f"/capture {text}",
        received_at=message.date,
        source=source,
        raw=message,
    )
    return Incoming(event, files, reply_to=message.message_id, duplicate=ALREADY_SAVED)


def message_link(message: Message) -> str:
    """t.me/<name>/<id> in a public group, t.me/c/<id>/<id> in a private supergroup (for
    its members); a basic group's or a private chat's messages have no link."""
    chat = message.chat
    if chat.username:
        return f"https://t.me/{chat.username}/{message.message_id}"
    internal = str(chat.id)
    if chat.type in (ChatType.SUPERGROUP, ChatType.CHANNEL) and internal.startswith("-100"):
        return f"https://t.me/c/{internal.removeprefix('-100')}/{message.message_id}"
    return ""


def _author(message: Message) -> str:
    if message.sender_chat is not None:  # an anonymous admin, or a channel's post
        return message.sender_chat.effective_name or str(message.sender_chat.id)
    if message.from_user is not None:
        return sender_of(message.from_user).name
    return "someone"
