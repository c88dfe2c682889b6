"""Corners of Update → event that are easier to pin without a server."""

from __future__ import annotations

from typing import Any

from telegram import Update

from adapters.telegram.translate import Incoming, Skip, translate
from tests.fakes.telegram_updates import Updates, photo, text_link

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


def test_a_hidden_link_shows_its_address_the_way_slack_links_do() -> None:
    text = "🎉 read the plan, then x.org/b and ✅ the list"
    entities = [
        text_link(text, "the plan", "https://x.org/plan"),
        text_link(text, "x.org/b", "https://x.org/b"),  # the words only repeat the url
        text_link(text, "the list", "https://x.org/list?a=1"),
        {"type": "bold", "offset": 3, "length": 4},
    ]
    result = translated(Updates().message(text, entities=entities))
    assert isinstance(result, Incoming)
    assert result.event.text == (
        "🎉 read the plan (https://x.org/plan), then https://x.org/b "
        "and ✅ the list (https://x.org/list?a=1)"
    )


def test_a_hidden_link_in_a_caption_is_shown_and_a_telegram_link_keeps_its_words() -> None:
    caption = "from Bob: see [slides]"
    entities = [
        text_link(caption, "Bob", "tg://user?id=7"),
        text_link(caption, "slides", "https://x.org/s.pdf"),
    ]
    update = Updates().message(photo=photo("p1"), caption=caption, caption_entities=entities)
    result = translated(update)
    assert isinstance(result, Incoming)
    assert result.event.text == "from Bob: see [slides (https://x.org/s.pdf)]"


def test_a_group_message_with_a_hidden_link_still_drops_the_bots_name() -> None:
    text = "@brainbot_test_bot read this today"
    entities = [
        {"type": "mention", "offset": 0, "length": 18},
        text_link(text, "this", "https://x.org/a"),
    ]
    result = translated(Updates().message(text, chat=GROUP, entities=entities))
    assert isinstance(result, Incoming)
    assert result.event.text == "read this (https://x.org/a) today"


def test_a_forwarded_message_keeps_its_origin_and_its_hidden_links() -> None:
    channel = {"id": -100123, "type": "channel", "title": "Tech News", "username": "technews"}
    origin = {"type": "channel", "date": 1_700_000_000, "chat": channel, "message_id": 99}
    text = "New release notes are out"
    entities = [text_link(text, "release notes", "https://x.org/notes")]
    result = translated(Updates().message(text, entities=entities, forward_origin=origin))
    assert isinstance(result, Incoming)
    assert result.event.text == "New release notes (https://x.org/notes) are out"
    assert result.event.source["forwarded_from"] == "Tech News"
    assert result.event.source["forwarded_link"] == "https://t.me/technews/99"


def test_each_part_of_an_album_says_which_album_and_a_lone_message_does_not() -> None:
    first, second = Updates().album([{"photo": photo("a")}, {"photo": photo("b")}], caption="x")
    parts = [translated(first), translated(second)]
    assert [p.media_group for p in parts if isinstance(p, Incoming)] == ["13579", "13579"]
    lone = translated(Updates().message(photo=photo("c")))
    assert isinstance(lone, Incoming) and lone.media_group is None


def test_in_a_group_an_album_part_not_naming_the_bot_waits_for_one_that_does() -> None:
    part = translated(Updates().message(chat=GROUP, photo=photo("a"), media_group_id="5"))
    assert isinstance(part, Incoming)
    assert (part.media_group, part.addressed) == ("5", False)
    lone = translated(Updates().message(chat=GROUP, photo=photo("b")))
    assert isinstance(lone, Skip)
