"""A message that arrives while the person is at the console's prompt (a timeline
line, related notes, a reminder) prints above the prompt, which is drawn again with
what they had typed: nothing prints over the line being written (issue 40)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.bot.console_support import Terminal

pytestmark = pytest.mark.slow  # starts a process on a pseudo-terminal

# The real console adapter with an engine that echoes; SIGUSR1 sends a message from
# outside the turn, as the timeline and the reminders do.
CHILD = """
import asyncio, signal
from adapters.console.terminal import ConsoleAdapter
from bot.events import Reply

async def main():
    console = ConsoleAdapter(user="ada")
    async def engine(event):
        return [Reply(f"heard: {event.text}")]
    loop = asyncio.get_running_loop()
    later = Reply("Related: [[Tea garden]]")
    loop.add_signal_handler(
        signal.SIGUSR1, lambda: loop.create_task(console.send(console.conversation, later))
    )
    await console.start(engine)
    await console.wait_closed()
    await console.stop()

asyncio.run(main())
"""


def test_a_later_message_prints_above_the_prompt_and_keeps_the_typed_words(
    tmp_path: Path,
) -> None:
    terminal = Terminal(tmp_path, "unused", program=("-c", CHILD))
    terminal.read_until(b"> ")
    terminal.type(b"half")
    terminal.read_until(b"> half")
    os.kill(terminal.pid, signal.SIGUSR1)
    terminal.read_until(b"Related: [[Tea garden]]")
    terminal.read_until(b"> half", count=2)  # the prompt again, with the typed words
    terminal.type(b"way\r")
    terminal.read_until(b"heard: halfway")
    terminal.type(b"/quit\r")

    assert terminal.wait_exit() == 0
    # The prompt's line was cleared before the message: it starts a line of its own.
    assert b"\r\x1b[KRelated: [[Tea garden]]\r\n> half" in terminal.screen
    assert b"halfRelated" not in terminal.screen
