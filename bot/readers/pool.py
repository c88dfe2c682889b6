"""PDFs, Word files, photos, web pages and HTML mails are read in processes of their
own, held by an address-space limit and a wall-clock kill, the way browsers and mail
servers keep their parsers: one PDF page whose content stream inflates to a gibibyte used to take
the bot's own process to 2.2 GB (5.3 GB for a 4 MB file), past any bound checked
between pages; a thread that was told to give up went on reading.

A reader process is started on first use and kept for the next item (a start costs
0.2-0.3 s, an item sent to a running one a few milliseconds: `bench.readers`). At most
`processes` run at once, each reading one item at a time. An item that passes the
memory limit (the reader dies or answers MemoryError), or its time, is that item's
failure alone ("too large to read", "took too long to read"); its reader is killed with
everything it started (Tesseract), and the next item gets a fresh one. An item whose
caller stops waiting (the note's reading ran out of time) kills its reader too: the
work stops when the person is told.

Voice notes are heard by a pool of their own (one process, so one clip at a time,
niced below the chat, kept with its model loaded: bot.readers.speech).

The wire is ours and carries no pickles: a request is a JSON head and the file's bytes,
an answer one JSON object, both length-prefixed (bot.readers.reader reads them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import struct
import sys
from dataclasses import fields
from typing import Any

from bot.readers.pages import Page
from bot.readers.speech import Heard
from bot.readers.unreadable import Unreadable

log = logging.getLogger(__name__)

MEMORY_BYTES = 1024 * 1024 * 1024  # address space: a 12 MP PNG needs ~470 MiB, a 5 MB page ~450
ITEM_SECONDS = 30.0
PROCESSES = 2  # as many as the notes read side by side (bot.enrich.worker.AT_ONCE)
ANSWER_MAX_BYTES = 16 * 1024 * 1024  # 200,000 characters of text are at most 800 KB
TOO_LARGE = "too large to read"
_REQUEST = struct.Struct(">II")  # head length, payload length
_ANSWER = struct.Struct(">I")
_PAGE_FIELDS = tuple(f.name for f in fields(Page))


class _Gone(Exception):
    """The reader process ended (or broke the wire) before it answered."""


class _Reader:
    """One reader process: a request in, an answer out, one at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(
        cls, memory_bytes: int, seconds: float, recycle_bytes: int | None, nice: int
    ) -> _Reader:
        extra = [str(recycle_bytes), str(nice)] if recycle_bytes is not None else []
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.readers.reader",
            str(memory_bytes),
            str(seconds),
            *extra,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            # Its own process group: a kill reaches Tesseract too.
            start_new_session=True,
            env=_reader_env(),
        )
        return cls(process)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def ask(self, head: dict[str, Any], payload: bytes) -> dict[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        encoded = json.dumps(head).encode()
        try:
            stdin.write(_REQUEST.pack(len(encoded), len(payload)) + encoded)
            stdin.write(payload)
            await stdin.drain()
            (length,) = _ANSWER.unpack(await stdout.readexactly(_ANSWER.size))
            if length > ANSWER_MAX_BYTES:
                raise _Gone(f"an answer of {length} bytes")
            answer = json.loads(await stdout.readexactly(length))
        except (asyncio.IncompleteReadError, ConnectionError, ValueError) as exc:
            raise _Gone(str(exc)) from exc
        if not isinstance(answer, dict):
            raise _Gone("an answer that is not an object")
        return answer

    def kill(self) -> None:
        """SIGKILL to the process and all it started; it is reaped by asyncio."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    async def stop(self) -> None:
        self.kill()
        await self.process.wait()


class ReaderPool:
    """Reads documents, photos, pages and speech in reader processes held by
    `memory_bytes` of address space and `seconds` per item. Every failure raises
    Unreadable. A reader holding more than `recycle_bytes` after an item ends (None:
    the reader's own threshold); `nice` lowers their CPU priority."""

    def __init__(
        self,
        *,
        memory_bytes: int = MEMORY_BYTES,
        seconds: float = ITEM_SECONDS,
        processes: int = PROCESSES,
        recycle_bytes: int | None = None,
        nice: int = 0,
    ) -> None:
        self.memory_bytes = memory_bytes
        self.seconds = seconds
        self.recycle_bytes = recycle_bytes
        self.nice = nice
        self._slots = asyncio.Semaphore(processes)
        self._idle: list[_Reader] = []
        self._running: set[_Reader] = set()

    @property
    def pids(self) -> list[int]:
        """The reader processes running now (to measure them)."""
        return sorted(reader.process.pid for reader in self._running if reader.alive)

    async def document(
        self, data: bytes, file_name: str, mime_type: str | None, *, max_chars: int
    ) -> str | None:
        """bot.readers.documents.document_text, in a reader process."""
        head = {"read": "document", "name": file_name, "mime": mime_type, "max_chars": max_chars}
        return _text(await self._ask(head, data), none=True)

    async def image(self, data: bytes) -> str:
        """bot.readers.images.image_text, in a reader process."""
        text = _text(await self._ask({"read": "image"}, data), none=False)
        assert text is not None
        return text

    async def page(self, data: bytes, url: str, charset: str | None, *, max_chars: int) -> Page:
        """bot.readers.pages.read_page, in a reader process."""
        head = {"read": "page", "url": url, "charset": charset, "max_chars": max_chars}
        found = (await self._ask(head, data)).get("page")
        values: dict[str, Any] = found if isinstance(found, dict) else {}
        values = {name: values.get(name) for name in _PAGE_FIELDS}
        if not isinstance(values["text"], str) or not all(
            value is None or isinstance(value, str) for value in values.values()
        ):
            raise Unreadable("the reader gave an answer I can't use")
        return Page(**values)

    async def markdown(self, html: str) -> str:
        """bot.readers.pages.markdown_of_html (an HTML mail's text), in a reader process."""
        text = _text(await self._ask({"read": "markdown"}, html.encode()), none=False)
        assert text is not None
        return text

    async def speech(
        self, data: bytes, model_dir: str, language: str | None, *, max_seconds: float
    ) -> Heard:
        """bot.readers.speech.transcribe, in a reader process."""
        head = {
            "read": "speech",
            "model_dir": model_dir,
            "language": language,
            "max_seconds": max_seconds,
        }
        found = (await self._ask(head, data)).get("heard")
        values: dict[str, Any] = found if isinstance(found, dict) else {}
        text, language = values.get("text"), values.get("language")
        seconds, heard = values.get("seconds"), values.get("heard_seconds")
        if not (
            isinstance(text, str)
            and isinstance(language, str)
            and isinstance(seconds, int | float)
            and isinstance(heard, int | float)
        ):
            raise Unreadable("the reader gave an answer I can't use")
        return Heard(text, language, float(seconds), float(heard))

    async def close(self) -> None:
        """Stop every reader process (one reading now too)."""
        readers, self._running, self._idle = list(self._running), set(), []
        for reader in readers:
            await reader.stop()

    async def _ask(self, head: dict[str, Any], payload: bytes) -> dict[str, Any]:
        async with self._slots:
            reader = self._take()
            if reader is None:
                try:
                    reader = await _Reader.start(
                        self.memory_bytes, self.seconds, self.recycle_bytes, self.nice
                    )
                except OSError as exc:
                    log.error("a reader process could not start: %s", exc)
                    raise Unreadable("the reader could not start") from exc
                self._running.add(reader)
            try:
                async with asyncio.timeout(self.seconds):
                    answer = await reader.ask(head, payload)
            except TimeoutError:
                await self._drop(reader)
                raise Unreadable(f"it took too long to read (over {self.seconds:g} s)") from None
            except _Gone as gone:
                await self._drop(reader)
                log.warning(
                    "a reader process ended (exit status %s) reading a %s: %s",
                    reader.process.returncode,
                    head["read"],
                    gone,
                )
                raise Unreadable(TOO_LARGE) from None
            except BaseException:
                # Cancelled: whoever asked stopped waiting, so the reading stops too. It
                # stays listed until it is reaped, for `close` to wait for it.
                reader.kill()
                raise
            if answer.get("exit"):
                # It ends after a MemoryError, an error nobody foresaw, or holding much
                # memory: the next item starts a fresh one.
                await self._drop(reader)
            else:
                self._idle.append(reader)
        if "unreadable" in answer:
            raise Unreadable(str(answer["unreadable"]))
        return answer

    def _take(self) -> _Reader | None:
        self._running = {reader for reader in self._running if reader.alive}
        while self._idle:
            reader = self._idle.pop()
            if reader.alive:
                return reader
            self._running.discard(reader)
        return None

    async def _drop(self, reader: _Reader) -> None:
        self._running.discard(reader)
        await reader.stop()


def _reader_env() -> dict[str, str]:
    """What a reader needs of this process's environment: where programs, Python and
    Tesseract's models are, and the locale; not the tokens and keys of the bot."""
    return {
        name: value
        for name, value in os.environ.items()
        if name in {"PATH", "HOME", "LANG", "TMPDIR", "VIRTUAL_ENV"}
        or name.startswith(("PYTHON", "LC_", "TESS", "OMP_"))
    }


def _text(answer: dict[str, Any], *, none: bool) -> str | None:
    text = answer.get("text")
    if isinstance(text, str) or (none and text is None and "text" in answer):
        return text
    raise Unreadable("the reader gave an answer I can't use")
