"""Telegram as the process registers it: its contract builds the adapter from its own
settings (the token never left in the clear), which registers the contract's command
menu with Telegram at start; a webhook without its secret cannot be built; doctor
lists how it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.platform import ConfigurationError, Host
from adapters.telegram import TELEGRAM
from adapters.telegram.settings import TelegramSettings
from tests.adapters.telegram.conftest import Engine
from tests.fakes.telegram_api import FakeTelegram

HOST = Host(Path("data"), 20_000_000, 5.0)


async def test_the_adapter_built_from_the_contract_lists_its_menu(
    fake: FakeTelegram, engine: Engine
) -> None:
    settings = TelegramSettings(
        _env_file=None, TELEGRAM_BOT_TOKEN=fake.token, TELEGRAM_API_URL=fake.root
    )
    assert TELEGRAM.configured(settings) and fake.token not in repr(settings)
    adapter = TELEGRAM.build(settings, HOST)
    await adapter.start(engine)
    try:
        listed = [(c["command"], c["description"]) for c in fake.commands]
        assert listed == [(c.command, c.description) for c in TELEGRAM.menu()]
        assert ("save", "Reply /save to a message to keep it in your notes") in listed
    finally:
        await adapter.stop()


def test_a_webhook_without_its_secret_is_not_built() -> None:
    settings = TelegramSettings(
        _env_file=None,
        TELEGRAM_BOT_TOKEN="1:abc",
        TELEGRAM_WEBHOOK_URL="https://bot.example.org/telegram/webhook",
    )
    assert TELEGRAM.describe(settings) == "Telegram (webhook)"
    (problem,) = TELEGRAM.problems(settings)
    assert problem.detail == "TELEGRAM_WEBHOOK_URL is set without TELEGRAM_WEBHOOK_SECRET"
    with pytest.raises(ConfigurationError, match="TELEGRAM_WEBHOOK_SECRET"):
        TELEGRAM.build(settings, HOST)
