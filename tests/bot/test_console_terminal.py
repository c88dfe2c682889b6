"""`brainbot chat` at a terminal (a pseudo-terminal), keys as a person presses them:
arrow keys edit the line and recall history, log lines stay off the screen, and
Ctrl-C ends the chat at once without a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import Terminal
from tests.bot.helpers import notes

pytestmark = pytest.mark.slow  # starts brainbot processes

LEFT = b"\x1b[D"
UP = b"\x1b[A"


def test_line_editing_history_and_quiet_logs(tmp_path: Path, database_url: str) -> None:
    terminal = Terminal(tmp_path, database_url)
    terminal.read_until(b"> ")
    assert b"logs go to " in terminal.screen
    # "fense" mistyped: left over the "e", then "s" becomes "c".
    terminal.type(b"idea: fix the fense" + LEFT + b"\x7fc\r")
    terminal.read_until(b"Saved to ")
    terminal.read_until(b"> ", count=2)
    terminal.type(UP + b"\x7f\x7f\x7f\x7f\x7fgate\r")  # the last line again, edited
    terminal.read_until(b"Saved to ", count=2)
    terminal.read_until(b"> ", count=3)
    terminal.type(b"/quit\r")

    assert terminal.wait_exit() == 0
    vault = tmp_path / "data" / "vault"
    assert notes(vault) == ["ideas/fix-the-fence.md", "ideas/fix-the-gate.md"]
    screen = terminal.screen.decode("utf-8", "replace")
    assert "INFO" not in screen and '"level"' not in screen  # the log went to its file
    log = (tmp_path / "data" / "logs" / "brainbot.log").read_text(encoding="utf-8")
    assert "using the command router" in log
    assert "Slot(" not in log


def test_ctrl_c_ends_the_chat_cleanly(tmp_path: Path, database_url: str) -> None:
    terminal = Terminal(tmp_path, database_url)
    terminal.read_until(b"> ")
    terminal.type(b"half a thou")
    terminal.read_until(b"half a thou")  # on screen, as a person sees it before Ctrl-C
    terminal.type(b"\x03")  # Ctrl-C, with a line half typed

    assert terminal.wait_exit(timeout=30) == 0
    screen = terminal.screen.decode("utf-8", "replace")
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen
    assert screen.rstrip().endswith("Bye.")
    assert notes(tmp_path / "data" / "vault") == []
