"""Slack's name and settings: the bot token, and an app token (Socket Mode) or a signing
secret (HTTP mode at /slack/events), the Web API's address, and the emoji that saves a
message."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator

from adapters.platform import PlatformSettings
from bot.config import web_address

PLATFORM = "slack"  # the `platform` of Slack's events and conversations


class SlackSettings(PlatformSettings):
    """Slack's variables (the README's configuration table lists them)."""

    slack_bot_token: SecretStr | None = Field(
        None, alias="SLACK_BOT_TOKEN", description="`xoxb-…`: enables Slack"
    )
    slack_app_token: SecretStr | None = Field(
        None, alias="SLACK_APP_TOKEN", description="`xapp-…`: Socket Mode (no public URL needed)"
    )
    slack_signing_secret: SecretStr | None = Field(
        None, alias="SLACK_SIGNING_SECRET", description="HTTP mode: events at `/slack/events`"
    )
    slack_api_url: str = Field(
        "https://slack.com/api/",
        alias="SLACK_API_URL",
        description="Slack Web API base URL",
        examples=["https://slack.com/api/"],
    )
    # The reaction that saves a message for whoever adds it (its name, without colons).
    slack_save_emoji: str = Field(
        "brain",
        pattern=r"^[a-z0-9_+'-]+$",
        alias="BRAINBOT_SLACK_SAVE_EMOJI",
        description="Reacting with this emoji (its name, no colons) saves the message for you",
    )

    @field_validator("slack_api_url")
    @classmethod
    def _slack_api_address(cls, value: str) -> str | None:
        return web_address(value)
