"""Albums: the parts of a media group, each its own update, reach the engine as one
message, by polling and by webhook, and none is lost when the bot stops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from adapters.telegram.albums import ALBUM_QUIET
from adapters.telegram.app import TelegramAdapter
from bot.events import InboundMessage, Sender
from tests.adapters.telegram.conftest import Engine, make_adapter
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates, photo

QUIET = 0.5  # the tests' album window; the shipped one is ALBUM_QUIET


def three_photos(fake: FakeTelegram) -> list[dict[str, Any]]:
    for name in ("p1", "p2", "p3"):
        fake.add_file(name, f"jpeg {name}".encode())
    return [{"photo": photo(name)} for name in ("p1", "p2", "p3")]


@pytest.fixture
async def quick(fake: FakeTelegram, engine: Engine) -> AsyncIterator[TelegramAdapter]:
    telegram = make_adapter(fake, album_quiet=QUIET)
    await telegram.start(engine)
    yield telegram
    await telegram.stop()


def only_message(engine: Engine) -> InboundMessage:
    (event,) = engine.events
    assert isinstance(event, InboundMessage)
    return event


async def test_a_three_photo_album_is_one_message_with_every_photo_and_the_caption(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    parts = updates.album(three_photos(fake), caption="whiteboard after planning", group="77")
    fake.queue_update(parts[0])
    for part in parts[1:]:
        await asyncio.sleep(QUIET / 5)  # parts trickle in; each restarts the wait
        fake.queue_update(part)

    (reply,) = await fake.wait_for("sendMessage", within=10)

    event = only_message(engine)
    assert event.text == "whiteboard after planning"
    assert [a.data for a in event.attachments] == [b"jpeg p1", b"jpeg p2", b"jpeg p3"]
    assert {(a.kind, a.mime_type) for a in event.attachments} == {("photo", "image/jpeg")}
    assert event.event_id == "album:42:77"
    assert event.source["message_id"] == str(parts[0]["message"]["message_id"])
    assert (reply["chat_id"], reply["text"]) == (42, "got it")
    assert "reply_parameters" not in reply  # a private chat: answers are not quoted
    await asyncio.sleep(QUIET * 2)
    assert len(engine.events) == 1 and len(fake.calls("sendMessage")) == 1


async def test_the_album_waits_the_quiet_time_after_its_last_part(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    """The shipped window: nothing goes to the engine while parts may still come."""
    parts = updates.album(three_photos(fake), caption="receipts")
    for part in parts:
        fake.queue_update(part)
    await fake.wait_for("getUpdates", 2)  # the parts were fetched

    await asyncio.sleep(ALBUM_QUIET / 2)
    assert engine.events == []
    await engine.wait_events(1, within=ALBUM_QUIET + 5)
    assert len(only_message(engine).attachments) == 3


async def test_captions_on_several_documents_of_an_album_are_all_kept_in_order(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.add_file("d1", b"%PDF lease")
    fake.add_file("d2", b"%PDF annex")
    docs = [
        {"document": {"file_id": "d1", "file_unique_id": "u1", "file_name": "lease.pdf"}},
        {"document": {"file_id": "d2", "file_unique_id": "u2", "file_name": "annex.pdf"}},
    ]
    first, second = updates.album(docs)
    first["message"]["caption"] = "the lease"
    second["message"]["caption"] = "and its annex"
    fake.queue_update(second)  # Telegram may hand them over out of order
    fake.queue_update(first)

    await fake.wait_for("sendMessage", within=10)

    event = only_message(engine)
    assert event.text == "the lease\n\nand its annex"
    assert [(a.kind, a.file_name) for a in event.attachments] == [
        ("document", "lease.pdf"),
        ("document", "annex.pdf"),
    ]


async def test_a_part_delivered_twice_is_in_the_album_once(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    parts = updates.album(three_photos(fake)[:2], caption="two")
    update_id = fake.queue_update(parts[0])
    fake.queue_update({**parts[0], "update_id": update_id})
    fake.queue_update(parts[1])

    await fake.wait_for("sendMessage", within=10)

    assert [a.data for a in only_message(engine).attachments] == [b"jpeg p1", b"jpeg p2"]


async def test_two_albums_sent_together_stay_apart(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    photos = three_photos(fake)
    for part in updates.album(photos[:2], caption="one", group="1"):
        fake.queue_update(part)
    for part in updates.album(photos[2:], caption="two", group="2"):
        fake.queue_update(part)

    await fake.wait_for("sendMessage", 2, within=10)

    albums = {e.text: len(e.attachments) for e in engine.events if isinstance(e, InboundMessage)}
    assert albums == {"one": 2, "two": 1}


async def test_stopping_hands_a_waiting_album_over_before_the_adapter_is_gone(
    fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    telegram = make_adapter(fake, album_quiet=60)
    await telegram.start(engine)
    parts = updates.album(three_photos(fake), caption="cut short")
    ids = [fake.queue_update(part) for part in parts]
    await fake.wait_for("getUpdates", 2)
    assert all(update_id in fake.delivered_at for update_id in ids)  # fetched, so confirmed

    await asyncio.wait_for(telegram.stop(), 10)  # far less than the album's window

    assert len(only_message(engine).attachments) == 3
    assert len(fake.calls("sendMessage")) == 1  # answered while still connected


async def test_a_strangers_album_is_handed_over_without_fetching_a_file(
    fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    async def nobody(sender: Sender) -> bool:
        return False

    telegram = make_adapter(fake, album_quiet=QUIET)
    await telegram.start(engine, nobody)
    try:
        for part in updates.album(three_photos(fake), caption="let me in"):
            fake.queue_update(part)
        await fake.wait_for("sendMessage", within=10)
    finally:
        await telegram.stop()

    assert only_message(engine).attachments == ()
    assert fake.calls("getFile") == []


async def test_an_album_over_the_webhook_is_one_message(
    fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    secret = "album-secret"
    telegram = make_adapter(
        fake,
        webhook_url="https://bot.example.org/telegram/webhook",
        webhook_secret=secret,
        album_quiet=QUIET,
    )
    app = web.Application()
    telegram.mount(app)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    await telegram.start(engine)
    url = f"http://127.0.0.1:{port}/telegram/webhook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": secret}
    try:
        async with aiohttp.ClientSession() as session:
            for number, part in enumerate(updates.album(three_photos(fake), caption="hooked")):
                async with session.post(
                    url, json={"update_id": 500 + number, **part}, headers=headers
                ) as response:
                    assert response.status == 200
        await fake.wait_for("sendMessage", within=10)
    finally:
        await telegram.stop()
        await runner.cleanup()

    event = only_message(engine)
    assert (event.text, len(event.attachments)) == ("hooked", 3)
    assert len(fake.calls("sendMessage")) == 1


GROUP = {"id": -1001, "type": "supergroup", "title": "Team"}


async def test_in_a_group_an_album_naming_the_bot_in_one_caption_comes_whole(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    parts = updates.album(three_photos(fake), chat=GROUP)
    parts[1]["message"]["caption"] = "@brainbot_test_bot site visit"
    parts[1]["message"]["caption_entities"] = [{"type": "mention", "offset": 0, "length": 18}]
    for part in parts:
        fake.queue_update(part)

    (reply,) = await fake.wait_for("sendMessage", within=10)

    event = only_message(engine)
    assert event.text == "site visit"
    assert [a.data for a in event.attachments] == [b"jpeg p1", b"jpeg p2", b"jpeg p3"]
    first = parts[0]["message"]["message_id"]
    assert (reply["chat_id"], reply["reply_parameters"]["message_id"]) == (-1001, first)


async def test_in_a_group_an_album_not_for_the_bot_is_left_alone(
    quick: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    for part in updates.album(three_photos(fake), caption="holiday pictures", chat=GROUP):
        fake.queue_update(part)
    await fake.wait_for("getUpdates", 2)
    mention = [{"type": "mention", "offset": 0, "length": 18}]
    await asyncio.sleep(QUIET * 2)
    fake.queue_update(updates.message("@brainbot_test_bot hi", chat=GROUP, entities=mention))

    await fake.wait_for("sendMessage", within=10)

    assert [e.text for e in engine.events if isinstance(e, InboundMessage)] == ["hi"]
    assert fake.calls("getFile") == []
