"""HTTP mode: signed Events API and interactivity requests against the real bolt app."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

from bot.events import Attachment, Button, ButtonPress, Event, InboundMessage, Reply
from tests.adapters.slack.conftest import HttpBot
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_payloads import (
    CHANNEL,
    SIGNING_SECRET,
    block_actions,
    command_body,
    dm_event,
    event_body,
    interactive_body,
    mention_event,
    post_signed,
    slash_command,
)

APPROVAL = (
    Button("Approve", "approve", "ap1", "primary"),
    Button("Reject", "reject", "ap1", "danger"),
)


async def dm(bot: HttpBot, text: str, **extra: Any) -> dict[str, Any]:
    payload = dm_event(text, **extra)
    status, _ = await post_signed(bot.session, bot.url, event_body(payload))
    assert status == 200
    return payload


async def test_dm_is_handed_over_and_answered(http_bot: HttpBot, fake_slack: FakeSlack) -> None:
    await dm(http_bot, "buy milk &amp; eggs <https://shop.example|shop>")
    [posted] = await fake_slack.wait_for("chat.postMessage")
    assert posted.args["channel"] == "D0ALICE"
    assert "thread_ts" not in posted.args
    text = posted.args["blocks"][0]["text"]["text"]
    assert text == "got: buy milk &amp; eggs shop (https://shop.example)"
    [event] = http_bot.recorder.events
    assert isinstance(event, InboundMessage)
    assert event.text == "buy milk & eggs shop (https://shop.example)"
    sender = event.sender
    assert (sender.id, sender.name, sender.timezone) == ("U0ALICE", "Alice", "Europe/Berlin")
    assert event.conversation.thread_id is None
    assert event.source["platform"] == "slack"
    assert event.source["permalink"].startswith("https://acme.slack.com/archives/D0ALICE/p")


async def test_sender_profile_is_looked_up_once(http_bot: HttpBot, fake_slack: FakeSlack) -> None:
    await dm(http_bot, "one")
    await fake_slack.wait_for("chat.postMessage")
    await dm(http_bot, "two")
    await fake_slack.wait_for("chat.postMessage", 2)
    assert len(fake_slack.calls_of("users.info")) == 1


async def test_url_verification_is_answered(http_bot: HttpBot) -> None:
    body = {"token": "unused", "challenge": "c-123", "type": "url_verification"}
    status, text = await post_signed(http_bot.session, http_bot.url, event_body(body))
    assert status == 200
    assert "c-123" in text


@pytest.mark.parametrize(
    ("secret", "age"),
    [("not-the-secret", 0), (None, 6 * 60)],
    ids=["bad signature", "stale timestamp"],
)
async def test_unverified_requests_get_401(
    http_bot: HttpBot, fake_slack: FakeSlack, secret: str | None, age: int
) -> None:
    for body in (
        event_body(dm_event("forged")),
        interactive_body(block_actions(action_id="bb:approve", value="ap1", message_ts="1.2")),
    ):
        status, _ = await post_signed(
            http_bot.session,
            http_bot.url,
            body,
            timestamp=int(time.time()) - age,
            secret=secret or SIGNING_SECRET,
        )
        assert status == 401
    assert http_bot.recorder.events == []
    assert fake_slack.calls_of("chat.postMessage") == []


async def test_retried_event_is_handed_over_once(http_bot: HttpBot, fake_slack: FakeSlack) -> None:
    payload = dm_event("remember the dentist")
    for retry in (None, 1, 2):
        status, _ = await post_signed(
            http_bot.session, http_bot.url, event_body(payload), retry_num=retry
        )
        assert status == 200
    await dm(http_bot, "sentinel")
    await fake_slack.wait_for("chat.postMessage", 2)
    texts = [e.text for e in http_bot.recorder.events if isinstance(e, InboundMessage)]
    assert sorted(texts) == ["remember the dentist", "sentinel"]


async def test_ignored_messages_are_not_handed_over(
    http_bot: HttpBot, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="adapters.slack")
    await dm(http_bot, "from another bot", bot_id="B0OTHER", subtype="bot_message")
    await dm(http_bot, "edited", subtype="message_changed")
    await dm(http_bot, "deleted", subtype="message_deleted")
    await dm(http_bot, "in a channel", channel="C0RANDOM", channel_type="channel")
    await dm(http_bot, "sentinel")
    await fake_slack.wait_for("chat.postMessage")
    assert [e.text for e in http_bot.recorder.events if isinstance(e, InboundMessage)] == [
        "sentinel"
    ]
    assert "message_changed" in caplog.text
    assert "not a DM" in caplog.text


async def test_mention_is_answered_in_its_thread(http_bot: HttpBot, fake_slack: FakeSlack) -> None:
    payload = mention_event("what is due   this week?")
    await post_signed(http_bot.session, http_bot.url, event_body(payload))
    [posted] = await fake_slack.wait_for("chat.postMessage")
    ts = payload["event"]["ts"]
    assert (posted.args["channel"], posted.args["thread_ts"]) == (CHANNEL, ts)
    [event] = http_bot.recorder.events
    assert isinstance(event, InboundMessage)
    assert event.text == "what is due this week?"
    assert event.conversation.thread_id == ts


async def test_mention_inside_a_thread_stays_in_that_thread(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    await post_signed(
        http_bot.session, http_bot.url, event_body(mention_event("hi", thread_ts="9.9"))
    )
    [posted] = await fake_slack.wait_for("chat.postMessage")
    assert posted.args["thread_ts"] == "9.9"


async def _approval_message(bot: HttpBot, fake: FakeSlack) -> tuple[str, list[dict[str, object]]]:
    """Have the bot post a message with Approve/Reject buttons; return its ts and buttons."""
    bot.recorder.respond = lambda event: [
        Reply(text="Move *x* to projects?", preview="- a\n+ b", buttons=APPROVAL)
    ]
    await dm(bot, "move x to projects")
    [posted] = await fake.wait_for("chat.postMessage")
    [actions] = [b for b in posted.args["blocks"] if b["type"] == "actions"]
    return str(posted.response["ts"]), actions["elements"]


async def press(bot: HttpBot, button: dict[str, object], ts: str, user: str = "U0ALICE") -> None:
    payload = block_actions(
        action_id=str(button["action_id"]), value=str(button["value"]), message_ts=ts, user=user
    )
    status, _ = await post_signed(bot.session, bot.url, interactive_body(payload))
    assert status == 200


async def test_button_press_updates_the_message_and_drops_buttons(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    ts, buttons = await _approval_message(http_bot, fake_slack)
    assert [b["action_id"] for b in buttons] == ["bb:approve", "bb:reject"]
    http_bot.recorder.respond = lambda event: [Reply(text="Approved: moved x.", replace=True)]
    await press(http_bot, buttons[0], ts)
    [update] = await fake_slack.wait_for("chat.update")
    assert update.args["ts"] == ts
    assert all(block["type"] != "actions" for block in update.args["blocks"])
    assert fake_slack.messages[("D0ALICE", ts)].text == "Approved: moved x."
    press_event = http_bot.recorder.events[-1]
    assert isinstance(press_event, ButtonPress)
    assert (press_event.action, press_event.value, press_event.sender.id) == (
        "approve",
        "ap1",
        "U0ALICE",
    )


async def test_foreign_user_press_is_passed_to_the_engine(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    ts, buttons = await _approval_message(http_bot, fake_slack)

    def refuse(event: Event) -> list[Reply]:
        return [Reply(text=f"Only the requester can decide, {event.sender.name}.")]

    http_bot.recorder.respond = refuse
    await press(http_bot, buttons[1], ts, user="U0BOB")
    posts = await fake_slack.wait_for("chat.postMessage", 2)
    assert posts[-1].args["text"] == "Only the requester can decide, Bob."
    assert fake_slack.calls_of("chat.update") == []
    press_event = http_bot.recorder.events[-1]
    assert isinstance(press_event, ButtonPress)
    assert (press_event.action, press_event.sender.id) == ("reject", "U0BOB")


async def test_long_reply_is_split_within_slack_limits(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    paragraph = "word " * 150  # 750 characters
    long_text = "\n\n".join(f"{n}: {paragraph}" for n in range(300))
    http_bot.recorder.respond = lambda event: [
        Reply(text=long_text, buttons=APPROVAL, notice="note")
    ]
    await dm(http_bot, "list everything")
    await fake_slack.wait_until(
        lambda: any(
            b["type"] == "actions"
            for c in fake_slack.ok_calls("chat.postMessage")
            for b in c.args["blocks"]
        )
    )
    posts = fake_slack.ok_calls("chat.postMessage")
    assert len(posts) > 1
    assert len(fake_slack.calls_of("chat.postMessage")) == len(posts)  # none was rejected
    sections = [
        b["text"]["text"] for c in posts for b in c.args["blocks"] if b["type"] == "section"
    ]
    assert all(len(s) <= 3000 for s in sections)
    assert all(len(c.args["blocks"]) <= 50 for c in posts)
    assert " ".join(" ".join(sections).split()) == " ".join(long_text.split())
    assert posts[-1].args["blocks"][-1]["type"] == "context"


async def test_rate_limited_post_is_retried_after_the_wait(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    fake_slack.rate_limit("chat.postMessage", times=2, retry_after="0.2")
    await dm(http_bot, "hello")
    [posted] = await fake_slack.wait_for("chat.postMessage")
    calls = fake_slack.calls_of("chat.postMessage")
    assert [c.status for c in calls] == [429, 429, 200]
    assert calls[1].at - calls[0].at >= 0.2
    assert posted.args["blocks"][0]["text"]["text"] == "got: hello"


async def test_slack_error_is_logged_and_the_user_told(
    http_bot: HttpBot, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake_slack.fail("chat.postMessage", "msg_blocks_too_long")
    await dm(http_bot, "hello")
    [apology] = await fake_slack.wait_for("chat.postMessage")
    assert "msg_blocks_too_long" in apology.args["text"]
    assert "chat.postMessage failed: msg_blocks_too_long" in caplog.text


async def test_engine_failure_gets_a_short_apology(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    def explode(event: Event) -> list[Reply]:
        raise RuntimeError("engine bug")

    http_bot.recorder.respond = explode
    await dm(http_bot, "hello")
    [apology] = await fake_slack.wait_for("chat.postMessage")
    assert apology.args["text"].startswith("Sorry, something went wrong")


async def test_slash_command_answers_through_response_url(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    fields = slash_command("list projects", response_url=fake_slack.response_url("cmd"))
    status, _ = await post_signed(http_bot.session, http_bot.url, command_body(fields))
    assert status == 200
    await fake_slack.wait_until(lambda: bool(fake_slack.ok_calls("response_url")))
    [answer] = fake_slack.ok_calls("response_url")
    assert answer.args["response_type"] == "ephemeral"
    assert answer.args["blocks"][0]["text"]["text"] == "got: /list projects"
    assert fake_slack.calls_of("chat.postMessage") == []


async def test_ephemeral_button_is_replaced_through_response_url(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    payload = block_actions(
        action_id="bb:category",
        value="projects",
        message_ts="1.5",
        ephemeral=True,
        response_url=fake_slack.response_url("eph"),
    )
    await post_signed(http_bot.session, http_bot.url, interactive_body(payload))
    await fake_slack.wait_until(lambda: bool(fake_slack.ok_calls("response_url")))
    [answer] = fake_slack.ok_calls("response_url")
    assert answer.args["replace_original"] is True
    assert json.dumps(answer.args["blocks"]).count("pressed category projects") == 1


async def test_voice_clip_is_downloaded_and_handed_over(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    clip = fake_slack.add_file(
        "audio_message.webm", b"OggS fake audio", "audio/webm", subtype="slack_audio"
    )
    await dm(http_bot, "", subtype="file_share", files=[clip])
    await fake_slack.wait_for("chat.postMessage")
    [event] = http_bot.recorder.events
    assert isinstance(event, InboundMessage)
    [attachment] = event.attachments
    assert (attachment.kind, attachment.data, attachment.file_name) == (
        "voice",
        b"OggS fake audio",
        "audio_message.webm",
    )


async def test_a_labelled_link_and_files_are_handed_over_together(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    chart = fake_slack.add_file("chart.png", b"\x89PNG chart", "image/png")
    report = fake_slack.add_file("report.pdf", b"%PDF report", "application/pdf")
    text = "see <https://x.org/a|the pricing page> and <https://x.org/b|x.org/b>"
    await dm(http_bot, text, subtype="file_share", files=[chart, report])
    await fake_slack.wait_for("chat.postMessage")
    [event] = http_bot.recorder.events
    assert isinstance(event, InboundMessage)
    assert event.text == "see the pricing page (https://x.org/a) and https://x.org/b"
    assert event.attachments == (
        Attachment("photo", b"\x89PNG chart", "chart.png", "image/png"),
        Attachment("document", b"%PDF report", "report.pdf", "application/pdf"),
    )
    downloads = fake_slack.calls_of("file")
    assert [c.response for c in downloads] == [{"ok": True}] * 2  # with the bot token


async def test_file_that_cannot_be_fetched_is_reported(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    lost = fake_slack.add_file("plan.pdf", b"%PDF", "application/pdf")
    del fake_slack.files["plan.pdf"]
    await dm(http_bot, "the plan", subtype="file_share", files=[lost])
    posts = await fake_slack.wait_for("chat.postMessage", 2)
    assert "couldn't fetch plan.pdf" in posts[0].args["text"]
    [event] = http_bot.recorder.events
    assert isinstance(event, InboundMessage)
    assert (event.text, event.attachments) == ("the plan", ())


async def test_a_signed_request_with_broken_json_gets_400(
    http_bot: HttpBot, fake_slack: FakeSlack
) -> None:
    for body in (
        ('{"type": "event_callback", "event": {', "application/json"),
        ("payload=%7Bnot+json", "application/x-www-form-urlencoded"),
    ):
        status, _ = await post_signed(http_bot.session, http_bot.url, body)
        assert status == 400
    assert http_bot.recorder.events == []
