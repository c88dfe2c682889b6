"""A fake Slack and a real SlackAdapter (bolt inside) wired to it, in either mode."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

import aiohttp
import pytest
from aiohttp import web

from adapters.slack.app import SlackAdapter
from bot.events import Event, InboundMessage, Reply
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import SIGNING_SECRET


def echo(event: Event) -> Sequence[Reply]:
    if isinstance(event, InboundMessage):
        return [Reply(text=f"got: {event.text}")]
    return [Reply(text=f"pressed {event.action} {event.value}", replace=True)]


class Recorder:
    """An `on_event` that records events and answers with `respond(event)`."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.respond: Callable[[Event], Sequence[Reply]] = echo

    async def __call__(self, event: Event) -> Sequence[Reply]:
        self.events.append(event)
        return self.respond(event)


@dataclass
class HttpBot:
    adapter: SlackAdapter
    url: str
    session: aiohttp.ClientSession
    recorder: Recorder


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    await fake.start()
    yield fake
    await fake.close()


@pytest.fixture
async def http_bot(fake_slack: FakeSlack) -> AsyncIterator[HttpBot]:
    adapter = SlackAdapter(BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=fake_slack.api_url)
    app = web.Application()
    adapter.mount(app)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    recorder = Recorder()
    await adapter.start(recorder)
    async with aiohttp.ClientSession() as session:
        yield HttpBot(adapter, f"http://127.0.0.1:{port}/slack/events", session, recorder)
    await adapter.stop()
    await runner.cleanup()


@pytest.fixture
async def socket_bot(fake_slack: FakeSlack) -> AsyncIterator[tuple[SlackAdapter, Recorder]]:
    adapter = SlackAdapter(BOT_TOKEN, app_token=APP_TOKEN, api_url=fake_slack.api_url)
    recorder = Recorder()
    await adapter.start(recorder)
    yield adapter, recorder
    await adapter.stop()
