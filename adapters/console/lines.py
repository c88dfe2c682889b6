"""Reading the console's input lines without blocking the event loop.

At a terminal, lines come through readline: arrow keys edit the line and walk the
history (kept in a file between sessions) instead of landing in notes as escape
bytes. Piped input is read as it is. Bytes that are not UTF-8 become U+FFFD, so a
stray byte cannot end the chat.

Each line is read in a daemon thread, asked for one at a time (so the prompt shows
after the previous reply): Ctrl-C and the end of the program never wait for a line.

A message that arrives while the person is at the prompt (a timeline line, related
notes, a reminder) is printed above it, and the prompt is drawn again under it with
what they had typed (`print_above`). Readline's own redraw suffices for this:
prompt_toolkit's `patch_stdout` would do it too, at a cost of 84-313 ms (median
94 ms) of imports at every start, measured with `python -X importtime`, where
readline adds about 1 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

HISTORY_LENGTH = 1000


def clean_text(line: str) -> str:
    """`line` as valid Unicode: undecodable bytes (surrogate escapes) become U+FFFD."""
    try:
        return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return line.encode("utf-8", "replace").decode("utf-8")


class LineReader:
    """Lines from `stdin`, one per `read()`; None at the end of input."""

    def __init__(
        self,
        stdin: TextIO,
        stdout: TextIO,
        *,
        prompt: str | None,
        history_file: Path | None = None,
    ) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.prompt = prompt
        self.history_file = history_file
        self._readline: Any = None
        self._terminal: list[Any] | None = None
        # Whether the prompt is on the screen, waiting for keys; guarded by the lock,
        # which also keeps one message's lines from mixing with the prompt's.
        self._at_prompt = False
        self._screen = threading.Lock()
        if prompt is not None and stdin is sys.stdin and stdin.isatty():
            self._start_readline()
        self._requests: queue.Queue[asyncio.Future[str | None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="console-input", daemon=True)
        self._thread.start()

    def _start_readline(self) -> None:
        try:
            import readline
            import termios
        except ImportError:  # no readline on this platform: plain lines still work
            return
        self._readline = readline
        with contextlib.suppress(termios.error):
            self._terminal = termios.tcgetattr(self.stdin.fileno())
        readline.set_history_length(HISTORY_LENGTH)
        if hasattr(readline, "set_pre_input_hook"):  # called once the prompt is shown
            readline.set_pre_input_hook(self._prompt_shown)
        if self.history_file is not None and self.history_file.is_file():
            with contextlib.suppress(OSError):
                readline.read_history_file(self.history_file)
        reconfigure = getattr(self.stdin, "reconfigure", None)
        if reconfigure is not None:
            # input() then hands undecodable bytes over as escapes, which clean_text replaces.
            reconfigure(errors="surrogateescape")

    def print_above(self, text: str) -> None:
        """Print `text` on lines of its own; when the prompt is waiting for keys, above
        it, and the prompt is drawn again with what was typed so far."""
        with self._screen:
            if not self._at_prompt or self.prompt is None:
                self.stdout.write(text + "\n")
            else:
                typed = self._readline.get_line_buffer() if self._readline is not None else ""
                # Back to the prompt line's start and clear it, then the message, then
                # the prompt again where readline expects it.
                self.stdout.write(f"\r\x1b[K{text}\n{self.prompt}{typed}")
            self.stdout.flush()

    def _prompt_shown(self) -> None:
        with self._screen:
            self._at_prompt = True

    async def read(self) -> str | None:
        """The next line without its line break, or None when input has ended."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._requests.put(future)
        return await future

    def close(self) -> None:
        """Stop reading, save the history and give the terminal back as it was."""
        self._requests.put(None)
        if self._readline is not None:
            if self.history_file is not None:
                with contextlib.suppress(OSError):
                    self.history_file.parent.mkdir(parents=True, exist_ok=True)
                    self._readline.write_history_file(self.history_file)
            if self._terminal is not None:
                import termios

                with contextlib.suppress(termios.error):
                    termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._terminal)

    def _work(self) -> None:
        while True:
            future = self._requests.get()
            if future is None:
                return
            try:
                line: str | None = self._read_line()
            except Exception:  # a closed or broken stream ends the input
                line = None
            loop = future.get_loop()
            if loop.is_closed():
                return
            loop.call_soon_threadsafe(_settle, future, line)

    def _read_line(self) -> str | None:
        try:
            return self._prompted_line()
        finally:
            with self._screen:
                self._at_prompt = False

    def _prompted_line(self) -> str | None:
        if self._readline is not None:
            try:
                return clean_text(input(self.prompt or ""))
            except EOFError:
                return None
        if self.prompt is not None:
            with self._screen:
                self.stdout.write(self.prompt)
                self.stdout.flush()
                self._at_prompt = True
        buffer = getattr(self.stdin, "buffer", None)
        if buffer is not None:
            raw: bytes = buffer.readline()
            return raw.decode("utf-8", "replace").rstrip("\r\n") if raw else None
        line = self.stdin.readline()
        return clean_text(line.rstrip("\r\n")) if line else None


def _settle(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)
