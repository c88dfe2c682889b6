"""Corners of Update → event that are easier to pin without a server."""

from __future__ import annotations

from typing import Any

from telegram import Update

from adapters.telegram.translate import Incoming, Skip, translate
from tests.fakes.telegram_updates import Updates

BOT_ID, BOT_NAME = 123456, "brainbot_test_bot"
GROUP = {"id": -1001, "type": "supergroup", "title": "Team"}


def translated(update: dict[str, Any]) -> Incoming | Skip:
    result = translate(Update.de_json({"update_id": 1, **update}, None), BOT_NAME, BOT_ID)
    assert isinstance(result, Incoming | Skip)
    return result


def test_a_text_mention_of_the_bot_addresses_it_in_a_group() -> None:
    bot_user = {"id": BOT_ID, "is_bot": True, "first_name": "Brainbot"}
    entity = {"type": "text_mention", "offset": 0, "length": 8, "user": bot_user}
    result = translated(Updates().message("Brainbot note this", chat=GROUP, entities=[entity]))
    assert isinstance(result, Incoming)
    assert result.reply_to == result.event.raw.message_id


def test_a_mention_in_a_photo_caption_addresses_the_bot() -> None:
    photo = [{"file_id": "p", "file_unique_id": "up", "width": 10, "height": 10}]
    caption = "@BrainBot_Test_Bot receipts"
    entity = {"type": "mention", "offset": 0, "length": 18}
    update = Updates().message(chat=GROUP, photo=photo, caption=caption, caption_entities=[entity])
    result = translated(update)
    assert isinstance(result, Incoming)
    assert result.event.text == "receipts"
    assert [f.kind for f in result.files] == ["photo"]


def test_a_mention_of_another_bot_does_not() -> None:
    entity = {"type": "mention", "offset": 0, "length": 10}
    result = translated(Updates().message("@other_bot hi", chat=GROUP, entities=[entity]))
    assert isinstance(result, Skip)


def test_messages_from_bots_and_without_a_sender_are_skipped() -> None:
    other_bot = {"id": 9, "is_bot": True, "first_name": "Other"}
    assert isinstance(translated(Updates().message("hi", user=other_bot)), Skip)
    update = Updates().message("hi")
    del update["message"]["from"]
    assert isinstance(translated(update), Skip)


def test_a_message_forwarded_from_a_group_names_the_group_and_signature() -> None:
    origin = {"type": "chat", "date": 1_700_000_000, "sender_chat": GROUP}
    origin["author_signature"] = "Dana"
    result = translated(Updates().message("decision: ship friday", forward_origin=origin))
    assert isinstance(result, Incoming)
    assert result.event.source["forwarded_from"] == "Team"
    assert result.event.source["forwarded_author"] == "Dana"


def test_a_forum_topic_is_the_conversation_thread() -> None:
    update = Updates().message(
        "@brainbot_test_bot idea",
        chat=GROUP | {"is_forum": True},
        entities=[{"type": "mention", "offset": 0, "length": 18}],
        message_thread_id=77,
        is_topic_message=True,
    )
    result = translated(update)
    assert isinstance(result, Incoming)
    assert result.event.conversation.thread_id == "77"
