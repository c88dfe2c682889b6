"""Slack as the process registers it (adapters.platform): its settings, how it runs,
how it is built, and doctor's probe (auth.test and apps.connections.open, in plain HTTP:
no SDK is needed to ask)."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.base import Adapter
from adapters.platform import ConfigurationError, Finding, Host, MenuCommand, ask_json

from .settings import PLATFORM, SlackSettings

NEEDS_A_MODE = (
    "SLACK_BOT_TOKEN is set, but neither SLACK_APP_TOKEN (Socket Mode) nor "
    "SLACK_SIGNING_SECRET (HTTP mode at /slack/events): set one of them"
)


class Slack:
    """Slack's contract (see adapters.platform.Platform)."""

    name = PLATFORM
    title = "Slack"
    settings = SlackSettings
    # `/start` is a Slack command of its own: a claim code goes in a DM as words.
    claim = "`claim {code}` in a DM"

    def configured(self, settings: SlackSettings) -> bool:
        return settings.slack_bot_token is not None

    def describe(self, settings: SlackSettings) -> str | None:
        if settings.slack_app_token:
            return "Slack (Socket Mode)"
        return "Slack (HTTP mode)" if settings.slack_signing_secret else None

    def problems(self, settings: SlackSettings) -> list[Finding]:
        if settings.slack_app_token or settings.slack_signing_secret:
            return []
        return [
            Finding(
                "problem",
                "configuration",
                "SLACK_BOT_TOKEN is set without SLACK_APP_TOKEN or SLACK_SIGNING_SECRET",
                "set SLACK_APP_TOKEN (xapp-…, Socket Mode) or SLACK_SIGNING_SECRET "
                "(HTTP mode, events at /slack/events)",
            )
        ]

    def build(self, settings: SlackSettings, host: Host) -> Adapter:
        token, app, signing = (
            settings.slack_bot_token,
            settings.slack_app_token,
            settings.slack_signing_secret,
        )
        if token is None or not (app or signing):
            raise ConfigurationError(NEEDS_A_MODE)
        from .app import SlackAdapter

        return SlackAdapter(
            token.get_secret_value(),
            app_token=app.get_secret_value() if app else None,
            signing_secret=signing.get_secret_value() if signing else None,
            api_url=settings.slack_api_url,
            shutdown_timeout=host.grace,
            max_file_bytes=host.max_file_bytes,
            save_emoji=settings.slack_save_emoji,
        )

    async def probe(self, settings: SlackSettings) -> list[Finding]:
        if settings.slack_bot_token is None:
            return []
        import aiohttp  # here: only doctor probes; a command that serves nothing never pays it

        api = settings.slack_api_url.rstrip("/") + "/"
        found: list[Finding] = []
        try:
            _, auth = await ask_json(
                "POST",
                api + "auth.test",
                headers=_bearer(settings.slack_bot_token.get_secret_value()),
            )
            if auth.get("ok"):
                found.append(
                    Finding("ok", "slack", f"signed in as {auth.get('user')} in {auth.get('team')}")
                )
            else:
                found.append(
                    Finding(
                        "problem",
                        "slack",
                        f"SLACK_BOT_TOKEN was refused ({auth.get('error')})",
                        "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions",
                    )
                )
            if settings.slack_app_token:
                _, socket = await ask_json(
                    "POST",
                    api + "apps.connections.open",
                    headers=_bearer(settings.slack_app_token.get_secret_value()),
                )
                if socket.get("ok"):
                    found.append(
                        Finding("ok", "slack", "Socket Mode is allowed for SLACK_APP_TOKEN")
                    )
                else:
                    found.append(
                        Finding(
                            "problem",
                            "slack",
                            f"SLACK_APP_TOKEN was refused ({socket.get('error')})",
                            "turn on Socket Mode; add an app token (xapp-…) with connections:write",
                        )
                    )
        except (aiohttp.ClientError, TimeoutError) as exc:
            found.append(
                Finding(
                    "problem",
                    "slack",
                    f"cannot reach {settings.slack_api_url}: {exc!r}",
                    "check the network or SLACK_API_URL",
                )
            )
        return found

    def menu(self) -> Sequence[MenuCommand]:
        return ()  # Slack's one command, /brain, is declared in the app's manifest


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


SLACK = Slack()
