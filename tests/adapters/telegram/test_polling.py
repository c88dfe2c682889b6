"""Messages in, replies out: the polling adapter against the fake Bot API."""

from __future__ import annotations

import logging

import pytest

from adapters.telegram.app import TelegramAdapter
from bot.events import Attachment, Conversation, InboundMessage, Reply
from tests.adapters.telegram.conftest import Engine, make_adapter
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates


async def test_start_registers_the_command_menu_and_polls(
    adapter: TelegramAdapter, fake: FakeTelegram
) -> None:
    await fake.wait_for("getUpdates")
    names = [command["command"] for command in fake.commands]
    assert names == [
        "start",
        "help",
        "list",
        "search",
        "undo",
        "digest",
        "reminders",
        "sync",
        "link",
        "settings",
        "save",
    ]
    # Said as brainbot's command records say them, and Telegram's own /save.
    described = {command["command"]: command["description"] for command in fake.commands}
    assert described["list"] == "Recent entries, e.g. /list projects"
    assert described["save"] == "Reply /save to a message to keep it in your notes"
    methods = [r.method for r in fake.requests]
    assert methods.index("getMe") < methods.index("deleteWebhook") < methods.index("getUpdates")


async def test_text_message_reaches_the_engine_and_the_reply_is_sent(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    engine.answer = lambda event: [Reply("Filed under <ideas> & done")]
    update_id = fake.queue_update(updates.message("buy oat milk"))

    sent = await fake.wait_for("sendMessage")

    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    assert event.text == "buy oat milk"
    assert event.event_id == str(update_id)
    assert (event.sender.id, event.sender.name) == ("42", "Ada")
    assert event.conversation.chat_id == "42"
    assert event.source == {"platform": "telegram", "chat_id": "42", "message_id": "1"}
    assert sent[0]["chat_id"] == 42
    assert sent[0]["parse_mode"] == "HTML"
    assert sent[0]["text"] == "Filed under &lt;ideas&gt; &amp; done"


async def test_voice_note_is_downloaded_and_handed_over_as_bytes(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("voice1", b"OggS-voice-bytes")
    voice = {"file_id": "voice1", "file_unique_id": "uv1", "duration": 3, "mime_type": "audio/ogg"}
    fake.queue_update(updates.message(voice=voice))

    await fake.wait_for("sendMessage")

    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    assert event.text == ""
    (attachment,) = event.attachments
    assert (attachment.kind, attachment.data) == ("voice", b"OggS-voice-bytes")
    assert attachment.mime_type == "audio/ogg"
    assert attachment.file_name.startswith("voice-") and attachment.file_name.endswith(".ogg")


async def test_audio_file_keeps_its_name(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("a1", b"ID3-audio")
    audio = {"file_id": "a1", "file_unique_id": "ua1", "duration": 60}
    audio |= {"file_name": "standup.mp3", "mime_type": "audio/mpeg"}
    fake.queue_update(updates.message(audio=audio))

    await fake.wait_for("sendMessage")

    (attachment,) = engine.events[0].attachments  # type: ignore[union-attr]
    assert (attachment.kind, attachment.file_name, attachment.data) == (
        "audio",
        "standup.mp3",
        b"ID3-audio",
    )


async def test_photo_with_caption_sends_the_largest_size_and_the_caption_as_text(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("small", b"tiny-jpeg")
    fake.add_file("large", b"big-jpeg")
    sizes = [
        {"file_id": "small", "file_unique_id": "s", "width": 90, "height": 60},
        {"file_id": "large", "file_unique_id": "l", "width": 1280, "height": 960},
    ]
    fake.queue_update(updates.message(photo=sizes, caption="whiteboard from planning"))

    await fake.wait_for("sendMessage")

    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    assert event.text == "whiteboard from planning"
    (attachment,) = event.attachments
    assert (attachment.kind, attachment.data, attachment.mime_type) == (
        "photo",
        b"big-jpeg",
        "image/jpeg",
    )
    assert [p["file_id"] for p in fake.calls("getFile")] == ["large"]


async def test_document_with_caption(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("d1", b"%PDF-1.7")
    document = {"file_id": "d1", "file_unique_id": "ud1", "file_name": "lease.pdf"}
    document["mime_type"] = "application/pdf"
    fake.queue_update(updates.message(document=document, caption="new lease, renew by May"))

    await fake.wait_for("sendMessage")

    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    assert event.text == "new lease, renew by May"
    (attachment,) = event.attachments
    assert (attachment.kind, attachment.file_name, attachment.mime_type) == (
        "document",
        "lease.pdf",
        "application/pdf",
    )


async def test_forwarded_messages_record_where_they_came_from(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    bob = {"id": 7, "is_bot": False, "first_name": "Bob", "last_name": "Stone"}
    channel = {"id": -100123, "type": "channel", "title": "Tech News", "username": "technews"}
    origins = [
        {"type": "user", "date": 1_700_000_000, "sender_user": bob},
        {"type": "hidden_user", "date": 1_700_000_000, "sender_user_name": "Carol"},
        {"type": "channel", "date": 1_700_000_000, "chat": channel, "message_id": 99},
    ]
    for origin in origins:
        fake.queue_update(updates.message("worth keeping", forward_origin=origin))

    await engine.wait_events(3)

    sources = sorted((e.source for e in engine.events), key=lambda s: s["message_id"])  # type: ignore[union-attr]
    assert [s["forwarded_from"] for s in sources] == ["Bob Stone", "Carol", "Tech News"]
    assert sources[2]["forwarded_link"] == "https://t.me/technews/99"
    assert sources[0]["platform"] == "telegram"
    assert sources[0]["forwarded_at"].startswith("2023-11-14")


async def test_a_forwarded_pdf_arrives_with_its_bytes_name_type_and_origin(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("pdf1", b"%PDF-1.7 quarterly report")
    document = {"file_id": "pdf1", "file_unique_id": "upd1", "file_name": "q3-report.pdf"}
    document |= {"mime_type": "application/pdf", "file_size": 25}
    bob = {"id": 7, "is_bot": False, "first_name": "Bob", "last_name": "Stone"}
    origin = {"type": "user", "date": 1_700_000_000, "sender_user": bob}
    fake.queue_update(updates.message(document=document, forward_origin=origin))

    await fake.wait_for("sendMessage")

    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    (attachment,) = event.attachments
    assert attachment == Attachment(
        "document", b"%PDF-1.7 quarterly report", "q3-report.pdf", "application/pdf"
    )
    assert event.source["forwarded_from"] == "Bob Stone"
    assert event.source["forwarded_at"].startswith("2023-11-14")
    assert event.text == ""


async def test_slash_commands_go_to_the_engine_as_text_without_the_bot_name(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    command = "/search@brainbot_test_bot budget"
    entity = {"type": "bot_command", "offset": 0, "length": 25}
    fake.queue_update(updates.message(command, entities=[entity]))

    await fake.wait_for("sendMessage")

    assert engine.events[0].text == "/search budget"  # type: ignore[union-attr]


async def test_the_bot_token_never_reaches_the_logs(
    fake: FakeTelegram, engine: Engine, updates: Updates, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    telegram = make_adapter(fake)
    await telegram.start(engine)
    try:
        fake.queue_update(updates.message("note"))
        await fake.wait_for("sendMessage")
    finally:
        await telegram.stop()
    assert caplog.records
    assert not [r for r in caplog.records if fake.token in r.getMessage()]


async def test_send_works_without_start_and_stop_closes_it(
    fake: FakeTelegram, updates: Updates
) -> None:
    telegram = make_adapter(fake)
    ref = await telegram.send(Conversation("telegram", "42"), Reply("Your daily digest"))
    await telegram.edit(ref, Reply("Your daily digest (done)"))
    await telegram.stop()

    assert fake.calls("sendMessage")[0]["text"] == "Your daily digest"
    assert fake.calls("editMessageText")[0]["text"] == "Your daily digest (done)"
    assert fake.calls("getUpdates") == []  # sending alone never competes for updates


async def test_a_send_after_stop_connects_again(fake: FakeTelegram) -> None:
    telegram = make_adapter(fake)
    chat = Conversation("telegram", "42")
    await telegram.send(chat, Reply("first"))
    await telegram.send(chat, Reply("second"))
    await telegram.stop()
    await telegram.send(chat, Reply("after stop"))
    await telegram.stop()

    assert [c["text"] for c in fake.calls("sendMessage")] == ["first", "second", "after stop"]
    assert len(fake.calls("getMe")) == 2  # once per connection, not once per message


async def test_connected_while_polling_and_not_after_stop(
    fake: FakeTelegram, engine: Engine
) -> None:
    adapter = make_adapter(fake)
    assert not adapter.connected
    await adapter.start(engine)
    await fake.wait_for("getUpdates")
    assert adapter.connected
    await adapter.stop()
    assert not adapter.connected
