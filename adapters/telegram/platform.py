"""Telegram as the process registers it (adapters.platform): its settings, how it runs,
how it is built, its command menu, and doctor's probe (getMe and getWebhookInfo, in
plain HTTP: no SDK is needed to ask)."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.base import Adapter
from adapters.platform import ConfigurationError, Finding, Host, MenuCommand, ask_json

from .settings import PLATFORM, TelegramSettings


class Telegram:
    """Telegram's contract (see adapters.platform.Platform)."""

    name = PLATFORM
    title = "Telegram"
    settings = TelegramSettings
    claim = None  # `/start CODE`, as everywhere

    def configured(self, settings: TelegramSettings) -> bool:
        return settings.telegram_bot_token is not None

    def describe(self, settings: TelegramSettings) -> str | None:
        return "Telegram (" + ("webhook" if settings.telegram_webhook_url else "polling") + ")"

    def problems(self, settings: TelegramSettings) -> list[Finding]:
        if not settings.telegram_webhook_url or settings.telegram_webhook_secret:
            return []
        return [
            Finding(
                "problem",
                "configuration",
                "TELEGRAM_WEBHOOK_URL is set without TELEGRAM_WEBHOOK_SECRET",
                "set TELEGRAM_WEBHOOK_SECRET to a random string of A-Z, a-z, 0-9, _ and -",
            )
        ]

    def build(self, settings: TelegramSettings, host: Host) -> Adapter:
        token, secret = settings.telegram_bot_token, settings.telegram_webhook_secret
        if token is None:
            raise ConfigurationError("TELEGRAM_BOT_TOKEN is not set")
        from .app import TelegramAdapter

        try:
            return TelegramAdapter(
                token.get_secret_value(),
                api_url=settings.telegram_api_url,
                webhook_url=settings.telegram_webhook_url,
                webhook_secret=secret.get_secret_value() if secret else None,
                max_file_bytes=host.max_file_bytes,
                menu=self.menu(),
            )
        except ValueError as exc:  # the webhook's secret: missing, or not the Bot API's form
            raise ConfigurationError(str(exc)) from exc

    async def probe(self, settings: TelegramSettings) -> list[Finding]:
        if settings.telegram_bot_token is None:
            return []
        import aiohttp  # here: only doctor probes; a command that serves nothing never pays it

        root = settings.telegram_api_url.rstrip("/")
        base = f"{root}/bot{settings.telegram_bot_token.get_secret_value()}/"
        try:
            status, me = await ask_json("GET", base + "getMe")
            if not me.get("ok"):
                return [
                    Finding(
                        "problem",
                        "telegram",
                        f"TELEGRAM_BOT_TOKEN was refused ({status} {me.get('description', '')})",
                        "ask @BotFather for the token (/token) and set TELEGRAM_BOT_TOKEN",
                    )
                ]
            found = [Finding("ok", "telegram", f"signed in as @{me['result'].get('username')}")]
            if settings.telegram_webhook_url:
                _, info = await ask_json("GET", base + "getWebhookInfo")
                hook = info.get("result") or {}
                if hook.get("last_error_message"):
                    found.append(
                        Finding(
                            "warning",
                            "telegram",
                            "Telegram's last webhook delivery failed: "
                            f"{hook['last_error_message']}",
                            "TELEGRAM_WEBHOOK_URL must reach /telegram/webhook here, over HTTPS",
                        )
                    )
        except (aiohttp.ClientError, TimeoutError) as exc:
            return [
                Finding(
                    "problem",
                    "telegram",
                    f"cannot reach {settings.telegram_api_url}: {exc!r}",
                    "check the network or TELEGRAM_API_URL",
                )
            ]
        return found

    def menu(self) -> Sequence[MenuCommand]:
        # Imported here: the menu is made from the engine's commands, which a command
        # that only reads the settings does not need.
        from .menu import menu

        return menu()


TELEGRAM = Telegram()
