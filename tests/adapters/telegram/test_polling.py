"""Messages in, replies out: the polling adapter against the fake Bot API."""

from __future__ import annotations

from bot.events import InboundMessage, Reply
from tests.adapters.telegram.conftest import Engine
from tests.fakes.telegram_api import FakeTelegram, Updates


async def test_start_registers_the_command_menu_and_polls(adapter, fake: FakeTelegram) -> None:
    await fake.wait_for("getUpdates")
    names = [command["command"] for command in fake.commands]
    assert names == ["start", "help", "list", "search", "digest", "undo", "link", "settings"]
    methods = [r.method for r in fake.requests]
    assert methods.index("getMe") < methods.index("deleteWebhook") < methods.index("getUpdates")


async def test_text_message_reaches_the_engine_and_the_reply_is_sent(
    adapter, fake: FakeTelegram, engine: Engine, updates: Updates
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
