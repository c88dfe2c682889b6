"""The console adapter: chat with brainbot in a terminal or through a pipe.

Buttons show as numbered choices; typing the number presses the button. It goes
through exactly the same engine path as Slack and Telegram.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import itertools
import sys
import threading
import uuid
from datetime import UTC, datetime
from typing import TextIO

from adapters.base import EventHandler, MayUse, SentRef
from bot.events import ButtonPress, Conversation, InboundMessage, Reply, Sender


class ConsoleAdapter:
    platform = "console"

    def __init__(
        self,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        user: str | None = None,
        prompt: bool | None = None,
    ) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        name = user or getpass.getuser()
        self.sender = Sender("console", name, name)
        self.conversation = Conversation("console", name)
        self.prompt = self.stdin.isatty() if prompt is None else prompt
        self._session = uuid.uuid4().hex[:8]
        self._lines = itertools.count(1)
        self._message_ids = itertools.count(1)
        self._choices: dict[str, tuple[str, str]] = {}
        self._task: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None:
        self._task = asyncio.create_task(self._serve(on_event))

    async def wait_closed(self) -> None:
        """Return when standard input ends (EOF) or the adapter is stopped."""
        await self.closed.wait()

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
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
        print(text, file=self.stdout, flush=True)

    async def _serve(self, on_event: EventHandler) -> None:
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        # A daemon thread, not the loop's executor: a read still waiting for a line
        # when SIGTERM stops the bot must not keep the process from exiting.
        threading.Thread(
            target=self._read_lines, args=(loop, lines), name="console-stdin", daemon=True
        ).start()
        try:
            while True:
                if self.prompt:
                    self.stdout.write("> ")
                    self.stdout.flush()
                line = await lines.get()
                if line is None:
                    break
                text = line.strip()
                if not text:
                    continue
                for reply in await on_event(self._event(text)):
                    await self.send(self.conversation, reply)
        finally:
            self.closed.set()

    def _read_lines(
        self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]
    ) -> None:
        """Hand each line of standard input to the loop; None at its end."""
        try:
            for line in iter(self.stdin.readline, ""):
                loop.call_soon_threadsafe(lines.put_nowait, line)
        finally:
            with contextlib.suppress(RuntimeError):  # the loop closed first
                loop.call_soon_threadsafe(lines.put_nowait, None)

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
            source={"platform": "console", "message_id": event_id},
        )
