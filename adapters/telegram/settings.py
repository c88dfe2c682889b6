"""Telegram's name and settings: the bot token, the Bot API's address, and a webhook
(its public URL and secret) instead of polling."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator

from adapters.platform import PlatformSettings
from bot.config import web_address

PLATFORM = "telegram"  # the `platform` of Telegram's events and conversations


class TelegramSettings(PlatformSettings):
    """Telegram's variables (the README's configuration table lists them)."""

    telegram_bot_token: SecretStr | None = Field(
        None, alias="TELEGRAM_BOT_TOKEN", description="enables Telegram (long polling)"
    )
    telegram_api_url: str = Field(
        "https://api.telegram.org",
        alias="TELEGRAM_API_URL",
        description="Bot API server root (self-hosted Bot API servers)",
        examples=["https://api.telegram.org"],
    )
    telegram_webhook_url: str | None = Field(
        None,
        alias="TELEGRAM_WEBHOOK_URL",
        description="public URL of `/telegram/webhook`: webhook instead of polling",
        examples=["https://bot.example.org/telegram"],
    )
    telegram_webhook_secret: SecretStr | None = Field(
        None,
        alias="TELEGRAM_WEBHOOK_SECRET",
        description="checked against `X-Telegram-Bot-Api-Secret-Token`",
    )

    @field_validator("telegram_api_url", "telegram_webhook_url")
    @classmethod
    def _telegram_addresses(cls, value: str | None) -> str | None:
        return web_address(value)
