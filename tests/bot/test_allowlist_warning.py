"""The terminal chat needs no allow-list and says nothing about one: whoever has the
terminal has the files (a platform run logs its claim code instead, see
tests/production/test_claim.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import piped_chat

pytestmark = pytest.mark.slow  # starts brainbot processes


def test_the_terminal_chat_does_not_warn(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(tmp_path, database_url, ["/list"])

    assert done.returncode == 0, done.stderr
    assert "Nothing there yet." in done.stdout
    assert "BRAINBOT_ALLOWED_USERS" not in done.stderr
    assert "nobody may use" not in done.stderr
