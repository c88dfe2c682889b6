"""Logs: JSON lines for machines, readable lines at a terminal, the event id on every
line of a message's path, and never a secret."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from app.platforms import settings_class
from bot import logs
from bot.config import Settings
from bot.events import Conversation, InboundMessage, Sender

pytestmark = pytest.mark.slow  # starts brainbot processes

SLACK_TOKEN = "xoxb-1234567890-abcdefghijkl"
TELEGRAM_TOKEN = "7000000001:AAHk2v9x_Q-very-secret-telegram-token0"
OPENAI_KEY = "sk-proj-0123456789abcdefghij"
SIGNING = "an-app-signing-secret"
DB_PASSWORD = "pg-pass-word"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def settings(**values: str) -> Settings:
    base = {
        "SLACK_BOT_TOKEN": SLACK_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING,
        "TELEGRAM_BOT_TOKEN": TELEGRAM_TOKEN,
        "OPENAI_API_KEY": OPENAI_KEY,
        "DATABASE_URL": f"postgresql://brainbot:{DB_PASSWORD}@db/brainbot",
        "BRAINBOT_GIT_REMOTE": "https://ghp_personaltoken123@github.com/ada/vault.git",
        **values,
    }
    return settings_class()(_env_file=None, **base)  # brainbot's and each platform's


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def message(event_id: str) -> InboundMessage:
    return InboundMessage(
        event_id,
        Conversation("telegram", "42"),
        Sender("telegram", "42", "Ada"),
        "hello",
        datetime.now(UTC),
    )


def test_secrets_never_reach_the_log(restore_logging: None) -> None:
    out = io.StringIO()
    logs.configure(settings(), stream=out)
    log = logging.getLogger("test.secrets")
    log.info("calling %s/bot%s/getMe", "https://api.telegram.org", TELEGRAM_TOKEN)
    log.warning("signing secret %s, header Authorization: Bearer %s", SIGNING, OPENAI_KEY)
    log.info("connecting to postgresql://brainbot:%s@db/brainbot", DB_PASSWORD)
    log.info("pushing to https://ghp_personaltoken123@github.com/ada/vault.git")
    log.info("an unconfigured token still looks like one: xoxb-9999999999-zzzzzzzzzzzz")
    try:
        raise RuntimeError(f"auth failed for {SLACK_TOKEN}")
    except RuntimeError:
        log.exception("Slack said no")

    text = out.getvalue()
    for secret in (SLACK_TOKEN, TELEGRAM_TOKEN, OPENAI_KEY, SIGNING, DB_PASSWORD):
        assert secret not in text
    assert "ghp_personaltoken123" not in text and "xoxb-9999999999" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == 6
    assert lines[0]["message"] == "calling https://api.telegram.org/bot[redacted]/getMe"
    assert "RuntimeError: auth failed for [redacted]" in lines[-1]["error"]


def test_json_lines_carry_the_event_id_through_tasks(restore_logging: None) -> None:
    out = io.StringIO()
    logs.configure(settings(), stream=out)
    log = logging.getLogger("test.events")

    async def handle(event_id: str) -> None:
        logs.bind_event(message(event_id))
        log.info("handling")
        await asyncio.create_task(_log_later(log))

    async def both() -> None:
        await asyncio.gather(handle("100"), handle("101"))
        log.info("between events")

    asyncio.run(both())
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted((line.get("event_id", ""), line["message"]) for line in lines) == [
        ("", "between events"),
        ("telegram:100", "handling"),
        ("telegram:100", "later"),
        ("telegram:101", "handling"),
        ("telegram:101", "later"),
    ]
    assert {line["level"] for line in lines} == {"info"}


async def _log_later(log: logging.Logger) -> None:
    log.info("later")


def test_a_terminal_gets_readable_lines(restore_logging: None) -> None:
    out = Terminal()
    logs.configure(settings(BRAINBOT_LOG_LEVEL="DEBUG"), stream=out)

    async def handle() -> None:
        logs.bind_event(message("7"))
        logging.getLogger("bot.engine").debug("captured %s", "ideas/kite.md")

    asyncio.run(handle())
    line = out.getvalue().strip()
    assert line.endswith("DEBUG bot.engine [telegram:7] captured ideas/kite.md")
    assert not line.startswith("{")
