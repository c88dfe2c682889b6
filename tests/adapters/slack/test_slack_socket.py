"""Socket Mode: envelopes pushed through the fake websocket are acked and handled."""

from __future__ import annotations

import pytest

from adapters.slack.app import SlackAdapter
from adapters.slack.webapi import SlackCallError
from bot.events import Button, ButtonPress, Conversation, InboundMessage, Reply
from tests.adapters.slack.conftest import Recorder
from tests.fakes.slack_api import BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import block_actions, dm_event, mention_event, slash_command


async def test_events_are_acked_and_answered(
    socket_bot: tuple[SlackAdapter, Recorder], fake_slack: FakeSlack
) -> None:
    _, recorder = socket_bot
    assert fake_slack.ok_calls("apps.connections.open")
    envelope_id = await fake_slack.push("events_api", dm_event("call mum"))
    ack = await fake_slack.wait_for_ack(envelope_id)
    assert ack == {"envelope_id": envelope_id}
    [posted] = await fake_slack.wait_for("chat.postMessage")
    assert posted.args["blocks"][0]["text"]["text"] == "got: call mum"
    [event] = recorder.events
    assert isinstance(event, InboundMessage)
    assert event.sender.name == "Alice"


async def test_redelivered_envelope_is_acked_but_handed_over_once(
    socket_bot: tuple[SlackAdapter, Recorder], fake_slack: FakeSlack
) -> None:
    _, recorder = socket_bot
    payload = mention_event("note this")
    first = await fake_slack.push("events_api", payload)
    again = await fake_slack.push("events_api", payload, retry_attempt=1, retry_reason="timeout")
    await fake_slack.wait_for_ack(first)
    await fake_slack.wait_for_ack(again)
    await fake_slack.push("events_api", dm_event("sentinel"))
    await fake_slack.wait_for("chat.postMessage", 2)
    assert sorted(e.text for e in recorder.events if isinstance(e, InboundMessage)) == [
        "note this",
        "sentinel",
    ]


async def test_button_press_over_the_socket_updates_the_message(
    socket_bot: tuple[SlackAdapter, Recorder], fake_slack: FakeSlack
) -> None:
    adapter, recorder = socket_bot
    sent = await adapter.send(
        Conversation("slack", "D0ALICE"),
        Reply(text="Delete x?", buttons=(Button("Approve", "approve", "ap9"),)),
    )
    [ts] = sent.message_ids
    payload = block_actions(action_id="bb:approve", value="ap9", message_ts=ts)
    envelope_id = await fake_slack.push("interactive", payload)
    await fake_slack.wait_for_ack(envelope_id)
    [update] = await fake_slack.wait_for("chat.update")
    assert update.args["ts"] == ts
    assert fake_slack.messages[("D0ALICE", ts)].text == "pressed approve ap9"
    [event] = recorder.events
    assert isinstance(event, ButtonPress)
    assert (event.action, event.value) == ("approve", "ap9")


async def test_slash_command_over_the_socket(
    socket_bot: tuple[SlackAdapter, Recorder], fake_slack: FakeSlack
) -> None:
    _, recorder = socket_bot
    fields = slash_command("", response_url=fake_slack.response_url())
    envelope_id = await fake_slack.push("slash_commands", dict(fields))
    await fake_slack.wait_for_ack(envelope_id)
    await fake_slack.wait_until(lambda: bool(fake_slack.ok_calls("response_url")))
    [event] = recorder.events
    assert isinstance(event, InboundMessage)
    assert event.text == "/help"


async def test_stop_closes_the_socket(fake_slack: FakeSlack) -> None:
    adapter = SlackAdapter(BOT_TOKEN, app_token="xapp-fake-app-token", api_url=fake_slack.api_url)
    assert not adapter.connected
    await adapter.start(Recorder())
    await fake_slack.wait_until(lambda: any(not ws.closed for ws in fake_slack.sockets))
    assert adapter.connected
    await adapter.stop()
    await fake_slack.wait_until(lambda: all(ws.closed for ws in fake_slack.sockets))
    assert not adapter.connected


async def test_bad_app_token_fails_start(fake_slack: FakeSlack) -> None:
    adapter = SlackAdapter(BOT_TOKEN, app_token="xapp-wrong", api_url=fake_slack.api_url)
    with pytest.raises(SlackCallError) as failure:
        await adapter.start(Recorder())
    assert (failure.value.method, failure.value.error) == ("apps.connections.open", "invalid_auth")


async def test_bad_bot_token_fails_start(fake_slack: FakeSlack) -> None:
    adapter = SlackAdapter(
        "xoxb-wrong", app_token="xapp-fake-app-token", api_url=fake_slack.api_url
    )
    with pytest.raises(SlackCallError) as failure:
        await adapter.start(Recorder())
    assert failure.value.method == "auth.test"
