"""Telegram's limits, enforced by the fake: long replies, flood control, and the
typing indicator while the engine works."""

from __future__ import annotations

import pytest

from adapters.telegram.app import TelegramAdapter
from bot.events import Button, Event, Reply
from tests.adapters.telegram.conftest import Engine, make_adapter
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

# PTB itself reads RetryAfter.retry_after while building the error, which warns
# about the int → timedelta migration; the adapter handles both forms.
pytestmark = pytest.mark.filterwarnings("ignore:.*retry_after.*:DeprecationWarning")


async def test_a_long_reply_is_split_into_messages_telegram_accepts(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    lines = [f"{n:04d}. <entry> & “notes” 🧠 {'x' * 40}" for n in range(400)]
    long_text = "\n".join(lines)
    buttons = (Button("More", "page", "2"),)
    engine.answer = lambda event: [Reply(long_text, buttons=buttons, notice="from the index")]
    fake.queue_update(updates.message("/list"))

    await fake.wait_for("sendMessage", where=lambda message: "reply_markup" in message)

    sent = fake.calls("sendMessage")
    assert len(sent) > 1
    shown = [visible_text(m["text"]) for m in sent]  # each one passed the fake's checks
    assert shown[0].startswith("from the index\n\n0000. <entry> & “notes” 🧠")
    assert "".join(shown).count("🧠") == 400
    # Splits fall on line ends, so every entry arrives whole in one message.
    for line in lines:
        assert sum(line in text for text in shown) == 1
    # Only the last message carries the keyboard.
    assert ["reply_markup" in m for m in sent] == [False] * (len(sent) - 1) + [True]


async def test_flood_control_waits_as_told_and_retries(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.throttle("sendMessage", times=2, retry_after=0.2)
    fake.queue_update(updates.message("note"))

    await fake.wait_for("sendMessage", 3)

    attempts = [r for r in fake.requests if r.method == "sendMessage"]
    assert [a.params["text"] for a in attempts] == ["got it"] * 3
    assert attempts[1].at - attempts[0].at >= 0.2
    assert attempts[2].at - attempts[1].at >= 0.2
    assert len(fake.messages) == 1  # delivered once, after the two refusals


async def test_typing_is_shown_and_renewed_while_the_engine_works(
    fake: FakeTelegram, updates: Updates
) -> None:
    async def slow(event: Event) -> list[Reply]:
        # Done once Telegram has been told three times that the bot is typing.
        await fake.wait_for("sendChatAction", 3)
        return [Reply("done")]

    engine = Engine()
    engine.answer = slow
    telegram: TelegramAdapter = make_adapter(fake, typing_interval=0.05)
    await telegram.start(engine)
    try:
        fake.queue_update(updates.message("think hard"))
        await fake.wait_for("sendMessage")
    finally:
        await telegram.stop()

    actions = fake.calls("sendChatAction")
    assert {(a["chat_id"], a["action"]) for a in actions} == {(42, "typing")}
    # The indicator stops with the answer: nothing after the reply.
    last_action = max(r.at for r in fake.requests if r.method == "sendChatAction")
    reply_at = next(r.at for r in fake.requests if r.method == "sendMessage")
    assert last_action < reply_at
