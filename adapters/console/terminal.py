"""The console adapter: chat with brainbot in a terminal or through a pipe.

Buttons show as numbered choices; typing the number presses the button. It goes
through exactly the same engine path as Slack and Telegram. `/quit`, `exit` or
`quit` (or Ctrl-D, or the end of piped input) ends the session.
"""

from __future__ import annotations

import asyncio
import getpass
import itertools
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from adapters.base import SentRef
from adapters.console.lines import LineReader
from adapters.console.settings import PLATFORM
from bot.commands import is_leave_word
from bot.events import (
    ButtonPress,
    Conversation,
    EventHandler,
    InboundMessage,
    MayUse,
    Reply,
    Sender,
)

GREETING = (
    "brainbot: write a thought to file it, ask a question to search your notes, "
    "/help for commands, /quit to leave."
)
STALE_CHOICE = "That choice is no longer open; nothing changed."


class ConsoleAdapter:
    platform = PLATFORM

    def __init__(
        self,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        user: str | None = None,
        prompt: bool | None = None,
        history_file: Path | None = None,
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        name = user or getpass.getuser()
        self.sender = Sender(PLATFORM, name, name)
        self.conversation = Conversation(PLATFORM, name)
        self.prompt = self.stdin.isatty() if prompt is None else prompt
        self.history_file = history_file
        self._session = uuid.uuid4().hex[:8]
        self._lines = itertools.count(1)
        self._message_ids = itertools.count(1)
        self._choices: dict[str, tuple[str, str]] = {}
        self._task: asyncio.Task[None] | None = None
        self._reader: LineReader | None = None  # while the session reads its lines
        self.closed = asyncio.Event()

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None:
        self._task = asyncio.create_task(self._serve(on_event))

    async def wait_closed(self) -> None:
        """Return when standard input ends (EOF) or the adapter is stopped."""
        await self.closed.wait()

    def end(self) -> None:
        """Finish the session now (Ctrl-C): `wait_closed` returns."""
        self.closed.set()

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            self._reader = None  # nothing is read any more: no prompt to draw again
            if self.prompt:  # stopped mid-session (Ctrl-C): end the prompt's line
                self._print("\nBye.")
        self.closed.set()

    async def send(self, conversation: Conversation, reply: Reply) -> SentRef:
        ref = SentRef(conversation, (str(next(self._message_ids)),))
        self._print(self.render(reply))
        return ref

    async def edit(self, ref: SentRef, reply: Reply) -> None:
        self._print(self.render(reply, edited=True))

    def render(self, reply: Reply, edited: bool = False) -> str:
        lines = [("(updated) " if edited else "") + reply.text]
        if reply.preview:
            lines.extend("    " + line for line in reply.preview.splitlines())
        if reply.notice:
            lines.append(f"(!) {reply.notice}")
        if reply.buttons:
            numbered = []
            for button in reply.buttons:
                number = str(len(self._choices) + 1)
                self._choices[number] = (button.action, button.value)
                numbered.append(f"[{number}] {button.label}")
            lines.append("  ".join(numbered) + "   (type a number)")
        return "\n".join(lines)

    def _print(self, text: str) -> None:
        if self._reader is not None:
            # A message arriving later (timeline, related notes, a reminder) goes above
            # the prompt, which is drawn again: not over what the person is typing.
            self._reader.print_above(text)
        else:
            print(text, file=self.stdout, flush=True)

    async def _serve(self, on_event: EventHandler) -> None:
        lines = LineReader(
            self.stdin,
            self.stdout,
            prompt="> " if self.prompt else None,
            history_file=self.history_file,
        )
        self._reader = lines
        try:
            if self.prompt:
                self._print(GREETING)
            while True:
                line = await lines.read()
                if line is None:
                    break
                text = line.strip()
                if not text:
                    continue
                if is_leave_word(text):
                    if self.prompt:
                        self._print("Bye.")
                    break
                event = self._event(text)
                replies = await on_event(event)
                if isinstance(event, ButtonPress) and not replies:
                    self._print(STALE_CHOICE)  # a button already pressed (or expired)
                for reply in replies:
                    await self.send(self.conversation, reply)
        finally:
            self._reader = None
            lines.close()
            self.closed.set()

    def _event(self, text: str) -> InboundMessage | ButtonPress:
        event_id = f"{self._session}-{next(self._lines)}"
        now = datetime.now(UTC)
        choice = self._choices.get(text)
        if choice is not None:
            return ButtonPress(event_id, self.conversation, self.sender, *choice, received_at=now)
        return InboundMessage(
            event_id,
            self.conversation,
            self.sender,
            text,
            now,
            source={"platform": PLATFORM, "message_id": event_id},
        )
