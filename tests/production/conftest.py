"""Fake Slack, Telegram and OpenAI servers on 127.0.0.1 for a `brainbot run` subprocess,
and the environment that points it at them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Step, call, say
from tests.fakes.scripts import user_words
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import SIGNING_SECRET
from tests.fakes.telegram_api import FakeTelegram
from tests.production.process import clean_env


def file_as_idea(body: dict[str, Any], delay: float = 0.0) -> Step:
    """The model's side of a capture: `capture` for a new message, then a short answer."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return say("Filed it.")
    text = user_words(last)
    step = call(
        "capture",
        category="ideas",
        title=text[:60],
        body=text,
        confidence=0.9,
        tags=[],
        fields=[],
    )
    step.delay = delay
    return step


@dataclass
class Fakes:
    slack: FakeSlack
    telegram: FakeTelegram
    openai: FakeOpenAI

    def env(
        self,
        tmp_path: Path,
        database_url: str | None,
        *,
        slack: str | None = "http",
        telegram: bool = True,
        **extra: str,
    ) -> dict[str, str]:
        """Settings for `brainbot run`: Slack in `slack` mode ("http", "socket" or
        None), Telegram polling, the fake model, keyword search only."""
        settings = {
            "BRAINBOT_DATA_DIR": str(tmp_path / "data"),
            "BRAINBOT_EMBEDDINGS": "none",
            "OPENAI_BASE_URL": self.openai.base_url,
            "OPENAI_API_KEY": "sk-test-key-for-the-fake-server",
            "BRAINBOT_LLM_RETRIES": "0",
            "BRAINBOT_LLM_TIMEOUT": "30",
            "BRAINBOT_ALLOWED_USERS": "slack:*,telegram:*",
            # Half a day away: a test run near the default 08:00 would otherwise also
            # get the digest, and count one message too many.
            "BRAINBOT_DIGEST_TIME": (datetime.now(UTC) + timedelta(hours=12)).strftime("%H:%M"),
        }
        if database_url is not None:
            settings["DATABASE_URL"] = database_url
        if slack is not None:
            settings.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_API_URL=self.slack.api_url)
            if slack == "http":
                settings["SLACK_SIGNING_SECRET"] = SIGNING_SECRET
            else:
                settings["SLACK_APP_TOKEN"] = APP_TOKEN
        if telegram:
            settings.update(
                TELEGRAM_BOT_TOKEN=self.telegram.token, TELEGRAM_API_URL=self.telegram.root
            )
        settings.update(extra)
        return clean_env(**settings)


@pytest.fixture
async def fakes() -> AsyncIterator[Fakes]:
    slack, telegram, openai = FakeSlack(), FakeTelegram(), FakeOpenAI()
    await slack.start()
    await telegram.start()
    await openai.start()
    openai.responder = file_as_idea
    try:
        yield Fakes(slack, telegram, openai)
    finally:
        await openai.stop()
        await telegram.stop()
        await slack.close()
