"""The console's owner is never rate-limited: fifty lines piped into `brainbot chat`,
or typed ahead at a terminal faster than they are filed, make fifty notes, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import Terminal, piped_chat
from tests.bot.helpers import git_log, notes

pytestmark = pytest.mark.slow  # starts brainbot processes

LINES = 50  # more than BRAINBOT_RATE_LIMIT's default of 30 a minute
SLOW_DOWN = "faster than I file them"


def thoughts() -> list[str]:
    return [f"idea: thought number {n:02d}" for n in range(1, LINES + 1)]


def assert_all_filed_in_order(vault: Path) -> None:
    expected = [f"ideas/thought-number-{n:02d}.md" for n in range(1, LINES + 1)]
    assert notes(vault) == expected
    created = [s for s in reversed(git_log(vault)) if s.startswith("create ")]
    assert created == [f"create {path}" for path in expected]


def test_fifty_piped_lines_make_fifty_notes_in_order(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(tmp_path, database_url, thoughts())

    assert done.returncode == 0, done.stderr
    assert SLOW_DOWN not in done.stdout
    assert done.stdout.count("Saved to ideas/") == LINES
    assert_all_filed_in_order(tmp_path / "data" / "vault")


def test_fifty_lines_typed_ahead_at_a_terminal_make_fifty_notes(
    tmp_path: Path, database_url: str
) -> None:
    terminal = Terminal(tmp_path, database_url)
    terminal.read_until(b"> ")
    for line in thoughts():  # typed ahead: none waits for the reply to the one before
        terminal.type(line.encode() + b"\r")
    terminal.read_until(b"Saved to ideas/", count=LINES)
    terminal.type(b"/quit\r")

    assert terminal.wait_exit() == 0
    assert SLOW_DOWN.encode() not in terminal.screen
    assert_all_filed_in_order(tmp_path / "data" / "vault")
