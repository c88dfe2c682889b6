"""The warning that anyone may use the bot shows where it matters: when `run` serves
a chat platform, not in the terminal chat (whoever has the terminal has the files)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.commands.run import build_adapters
from bot.config import Settings
from tests.bot.console_support import piped_chat

WARNING = "BRAINBOT_ALLOWED_USERS is empty"


def test_the_terminal_chat_does_not_warn(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(tmp_path, database_url, ["/list"])

    assert done.returncode == 0, done.stderr
    assert "Nothing there yet." in done.stdout
    assert WARNING not in done.stderr


def test_serving_a_platform_without_an_allow_list_warns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        _env_file=None,
        BRAINBOT_DATA_DIR=tmp_path,
        TELEGRAM_BOT_TOKEN="123456:" + "a" * 35,
        TELEGRAM_API_URL="http://127.0.0.1:9",
    )
    with caplog.at_level(logging.WARNING):
        build_adapters(settings)
    assert WARNING in caplog.text

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        build_adapters(settings.model_copy(update={"allowed_users": ("telegram:1",)}))
    assert WARNING not in caplog.text
