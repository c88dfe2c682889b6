"""What the adapter keeps from the engine: duplicates, edits, groups that did not
address the bot, content it cannot file, files too big for the Bot API.

"Nothing happened" is observed after a later message's reply arrived: updates are
handled in the order they were fetched, and none of these wait on the network.
"""

from __future__ import annotations

from adapters.telegram.app import TOO_BIG, TelegramAdapter
from adapters.telegram.translate import UNSUPPORTED
from bot.events import InboundMessage, Reply
from tests.adapters.telegram.conftest import Engine
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates

GROUP = {"id": -1001, "type": "supergroup", "title": "Team"}


async def test_the_same_update_delivered_twice_reaches_the_engine_once(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    update = updates.message("call the plumber")
    update_id = fake.queue_update(update)
    fake.queue_update({**update, "update_id": update_id})  # same update_id again
    fake.queue_update(update)  # same chat + message id under a new update_id
    fake.queue_update(updates.message("marker"))

    await fake.wait_for("sendMessage", 2)

    assert [e.text for e in engine.events] == ["call the plumber", "marker"]  # type: ignore[union-attr]


async def test_edited_messages_are_ignored(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.queue_update(updates.message("buy milk", message_id=10))
    await fake.wait_for("sendMessage")
    fake.queue_update(updates.edited("buy oat milk", message_id=10))
    fake.queue_update(updates.message("marker"))

    await fake.wait_for("sendMessage", 2)

    assert [e.text for e in engine.events] == ["buy milk", "marker"]  # type: ignore[union-attr]


async def test_unsupported_content_gets_a_polite_answer_and_no_engine_call(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    sticker: dict[str, object] = {"file_id": "st", "file_unique_id": "ust", "type": "regular"}
    sticker |= {"width": 512, "height": 512, "is_animated": False, "is_video": False}
    fake.queue_update(updates.message(sticker=sticker))

    sent = await fake.wait_for("sendMessage")

    assert sent[0]["text"] == UNSUPPORTED
    assert engine.events == []


async def test_group_messages_need_a_mention_or_a_reply_to_the_bot(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    bot_message = {
        "message_id": 500,
        "date": 1_700_000_000,
        "chat": GROUP,
        "from": {"id": 123456, "is_bot": True, "first_name": "Brainbot"},
        "text": "Filed.",
    }
    mention = "@brainbot_test_bot remember the offsite budget"
    fake.queue_update(updates.message("chatting among ourselves", chat=GROUP))
    fake.queue_update(
        updates.message(
            mention, chat=GROUP, entities=[{"type": "mention", "offset": 0, "length": 18}]
        )
    )
    fake.queue_update(updates.message("and the venue", chat=GROUP, reply_to_message=bot_message))

    await fake.wait_for("sendMessage", 2)

    events = engine.events
    assert [e.text for e in events] == ["remember the offsite budget", "and the venue"]  # type: ignore[union-attr]
    assert all(e.conversation.chat_id == "-1001" for e in events)
    # In a group the answer quotes the message that addressed the bot.
    quoted = [m["reply_parameters"]["message_id"] for m in fake.calls("sendMessage")]
    assert sorted(quoted) == sorted(int(e.source["message_id"]) for e in events)  # type: ignore[union-attr]


async def test_a_file_over_20_mb_gets_a_clear_reply_and_nothing_reaches_the_engine(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    size = 25 * 1024 * 1024
    document = {"file_id": "big", "file_unique_id": "ubig", "file_name": "talk.mp4"}
    fake.add_file("big", b"", file_size=size)
    fake.queue_update(updates.message(document=document | {"file_size": size}, caption="talk"))

    sent = await fake.wait_for("sendMessage")

    assert sent[0]["text"] == TOO_BIG.format(limit="20 MB")
    assert engine.events == []
    assert fake.calls("getFile") == []  # the size was known upfront


async def test_a_file_the_bot_api_refuses_as_too_big_gets_the_same_reply(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("v", b"", file_size=30 * 1024 * 1024)
    voice = {"file_id": "v", "file_unique_id": "uv", "duration": 900}  # no file_size given
    fake.queue_update(updates.message(voice=voice))

    sent = await fake.wait_for("sendMessage")

    assert sent[0]["text"] == TOO_BIG.format(limit="20 MB")
    assert len(fake.calls("getFile")) == 1
    assert engine.events == []


async def test_an_engine_failure_becomes_an_apology_not_silence(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    def explode(event: object) -> list[Reply]:
        raise RuntimeError("database went away")

    engine.answer = explode
    fake.queue_update(updates.message("note this"))

    sent = await fake.wait_for("sendMessage")

    assert "something went wrong" in sent[0]["text"]
    assert isinstance(engine.events[0], InboundMessage)
