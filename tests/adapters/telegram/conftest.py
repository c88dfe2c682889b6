"""The real PTB Application against the fake Bot API, with an engine stand-in
that records events and answers with scripted replies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest

from adapters.telegram.app import TelegramAdapter
from bot.events import Event, Reply
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates

Answer = Callable[[Event], Awaitable[Sequence[Reply]] | Sequence[Reply]]


class Engine:
    """Records every event; answers with `answer(event)` (default: "got it")."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.answer: Answer = lambda event: [Reply("got it")]
        self._arrived = asyncio.Event()

    async def __call__(self, event: Event) -> Sequence[Reply]:
        self.events.append(event)
        self._arrived.set()
        replies = self.answer(event)
        if isinstance(replies, Awaitable):
            return await replies
        return replies

    async def wait_events(self, count: int, within: float = 5.0) -> list[Event]:
        async def enough() -> None:
            while len(self.events) < count:
                self._arrived.clear()
                await self._arrived.wait()

        await asyncio.wait_for(enough(), within)
        return self.events


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
def updates() -> Updates:
    return Updates()


@pytest.fixture
def engine() -> Engine:
    return Engine()


@pytest.fixture
async def adapter(fake: FakeTelegram, engine: Engine) -> AsyncIterator[TelegramAdapter]:
    """A polling adapter, started and connected to the fake."""
    telegram = make_adapter(fake)
    await telegram.start(engine)
    yield telegram
    await telegram.stop()


def make_adapter(fake: FakeTelegram, **options: Any) -> TelegramAdapter:
    options.setdefault("poll_timeout", 5)
    options.setdefault("typing_interval", 4.0)
    return TelegramAdapter(fake.token, api_url=fake.root, **options)
