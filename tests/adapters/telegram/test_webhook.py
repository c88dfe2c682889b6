"""Webhook mode: setWebhook with a secret, updates POSTed to our own aiohttp route,
and the secret header checked before anything is processed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import pytest
from aiohttp import web

from adapters.telegram.app import TelegramAdapter
from tests.adapters.telegram.conftest import Engine, make_adapter
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates

SECRET = "s3cret-Token_1"
PUBLIC_URL = "https://bot.example.org/telegram/webhook"


@dataclass
class Served:
    adapter: TelegramAdapter
    url: str


@pytest.fixture
async def served(fake: FakeTelegram, engine: Engine) -> AsyncIterator[Served]:
    telegram = make_adapter(fake, webhook_url=PUBLIC_URL, webhook_secret=SECRET)
    app = web.Application()
    telegram.mount(app)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    await telegram.start(engine)
    yield Served(telegram, f"http://127.0.0.1:{port}/telegram/webhook")
    await telegram.stop()
    await runner.cleanup()


async def post(url: str, body: dict[str, object], secret: str | None) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret is not None else {}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=body, headers=headers) as response,
    ):
        return response.status


async def test_start_sets_the_webhook_with_its_secret_and_does_not_poll(
    served: Served, fake: FakeTelegram
) -> None:
    (call,) = await fake.wait_for("setWebhook")
    assert call["url"] == PUBLIC_URL
    assert call["secret_token"] == SECRET
    assert call["allowed_updates"] == ["message", "callback_query"]
    assert fake.calls("getUpdates") == []


async def test_an_update_with_the_right_secret_is_processed(
    served: Served, fake: FakeTelegram, engine: Engine, updates: Updates
) -> None:
    status = await post(served.url, {"update_id": 7, **updates.message("from the webhook")}, SECRET)

    (sent,) = await fake.wait_for("sendMessage")
    assert status == 200
    assert [e.text for e in engine.events] == ["from the webhook"]  # type: ignore[union-attr]
    assert engine.events[0].event_id == "7"
    assert sent["text"] == "got it"


@pytest.mark.parametrize("secret", ["wrong", None], ids=["wrong secret", "missing secret"])
async def test_an_update_without_the_right_secret_is_refused_and_not_processed(
    served: Served, fake: FakeTelegram, engine: Engine, updates: Updates, secret: str | None
) -> None:
    status = await post(served.url, {"update_id": 8, **updates.message("forged")}, secret)
    assert status == 403
    # A genuine update afterwards goes through; the forged one never did.
    await post(served.url, {"update_id": 9, **updates.message("genuine")}, SECRET)
    await fake.wait_for("sendMessage")
    assert [e.text for e in engine.events] == ["genuine"]  # type: ignore[union-attr]


@pytest.mark.parametrize("body", [b"{not json", b"[]", b"{}", b'{"update_id": "x"}'])
async def test_a_malformed_body_is_a_bad_request(served: Served, body: bytes) -> None:
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(served.url, data=body, headers=headers) as response,
    ):
        assert response.status == 400


def test_a_webhook_without_a_secret_is_refused_at_construction(fake: FakeTelegram) -> None:
    with pytest.raises(ValueError, match="secret"):
        TelegramAdapter(fake.token, api_url=fake.root, webhook_url=PUBLIC_URL)
    with pytest.raises(ValueError, match="SECRET"):
        TelegramAdapter(fake.token, webhook_url=PUBLIC_URL, webhook_secret="has spaces")
