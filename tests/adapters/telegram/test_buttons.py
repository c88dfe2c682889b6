"""Inline keyboards: rendered with short callback_data, every press answered, the
decision shown by editing the message that had the buttons."""

from __future__ import annotations

from adapters.telegram.app import TelegramAdapter
from bot.events import Button, ButtonPress, Reply
from tests.adapters.telegram.conftest import Engine
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates

APPROVE = Button("Approve", "approve", "a1b2c3", "primary")
REJECT = Button("Reject", "reject", "a1b2c3", "danger")


def approval_flow(event: object) -> list[Reply]:
    if isinstance(event, ButtonPress):
        verdict = "Approved" if event.action == "approve" else "Rejected"
        return [Reply(f"{verdict}: move “Kitchen” to projects", replace=True)]
    return [Reply("Move “Kitchen” to projects?", buttons=(APPROVE, REJECT), preview="- a\n+ b")]


async def test_buttons_render_as_an_inline_keyboard(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    engine.answer = approval_flow
    fake.queue_update(updates.message("move kitchen to projects"))

    (sent,) = await fake.wait_for("sendMessage")

    assert sent["reply_markup"] == {
        "inline_keyboard": [
            [
                {"text": "Approve", "callback_data": "approve:a1b2c3", "style": "primary"},
                {"text": "Reject", "callback_data": "reject:a1b2c3", "style": "danger"},
            ]
        ]
    }
    assert sent["text"].endswith("<pre>- a\n+ b</pre>")


async def test_a_press_is_answered_decoded_and_replaces_the_buttons_with_the_outcome(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    engine.answer = approval_flow
    fake.queue_update(updates.message("move kitchen to projects"))
    (question,) = await fake.wait_for("sendMessage")
    message_id = next(iter(fake.messages.values())).message_id
    assert question["chat_id"] == 42

    fake.queue_update(updates.press("approve:a1b2c3", message_id=message_id))

    (edit,) = await fake.wait_for("editMessageText")
    answered = await fake.wait_for("answerCallbackQuery")
    press = engine.events[1]
    assert isinstance(press, ButtonPress)
    assert (press.action, press.value, press.sender.id) == ("approve", "a1b2c3", "42")
    assert press.conversation.chat_id == "42"
    assert len(answered) == 1
    assert edit["message_id"] == message_id
    assert edit["text"] == "Approved: move “Kitchen” to projects"
    assert "reply_markup" not in edit
    assert fake.messages[42, message_id].reply_markup is None
    assert len(fake.calls("sendMessage")) == 1


async def test_every_press_is_answered_even_a_repeat_or_a_stranger(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    # The engine decides who may approve; the adapter passes on who pressed.
    def refuse_strangers(event: object) -> list[Reply]:
        if isinstance(event, ButtonPress) and event.sender.id != "42":
            return [Reply("Only the person who asked can decide.")]
        return approval_flow(event)

    engine.answer = refuse_strangers
    fake.queue_update(updates.message("move kitchen to projects"))
    await fake.wait_for("sendMessage")
    message_id = next(iter(fake.messages.values())).message_id
    mallory = {"id": 666, "is_bot": False, "first_name": "Mallory"}

    fake.queue_update(updates.press("approve:a1b2c3", message_id=message_id, user=mallory))
    fake.queue_update(updates.press("approve:a1b2c3", message_id=message_id))
    fake.queue_update(updates.press("approve:a1b2c3", message_id=message_id))

    await fake.wait_for("answerCallbackQuery", 3)
    await engine.wait_events(4)
    await fake.wait_for("sendMessage", 2)
    assert fake.calls("sendMessage")[1]["text"] == "Only the person who asked can decide."
    senders = [e.sender.name for e in engine.events[1:]]
    assert sorted(senders) == ["Ada", "Ada", "Mallory"]


async def test_a_press_on_foreign_callback_data_is_answered_and_ignored(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    fake.queue_update(updates.press("no-colon-here", message_id=1))
    fake.queue_update(updates.message("marker"))

    await fake.wait_for("answerCallbackQuery")
    await fake.wait_for("sendMessage")

    assert [e.text for e in engine.events] == ["marker"]  # type: ignore[union-attr]


async def test_replace_on_a_message_that_cannot_be_edited_sends_a_new_one(
    adapter: TelegramAdapter, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    engine.answer = approval_flow
    fake.queue_update(updates.press("reject:a1b2c3", message_id=999_999))  # long gone

    (sent,) = await fake.wait_for("sendMessage")

    assert sent["text"] == "Rejected: move “Kitchen” to projects"
    assert len(fake.calls("editMessageText")) == 1
