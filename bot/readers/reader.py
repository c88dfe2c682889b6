"""The reader process (`python -m bot.readers.reader MEMORY_BYTES SECONDS [RECYCLE_BYTES
NICE]`), started and killed by bot.readers.pool: it limits its own address space before
it reads a byte, then answers one request after another on its standard input and output until they
close.

Every failure is an answer: a reason the person can read, or "too large to read" for
a MemoryError. After a MemoryError or an error nobody foresaw it says so and exits,
and the next item gets a fresh process; so does one left holding much memory. What
the readers print goes to the log, never into the answers. Besides the parent's
wall-clock kill, each item may use at most twice its time in CPU (RLIMIT_CPU), which
holds should the parent itself be gone.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import json
import os
import resource
import struct
import sys
import traceback
from typing import Any, BinaryIO

from bot.readers.documents import document_text
from bot.readers.images import image_text
from bot.readers.pages import markdown_of_html, read_page
from bot.readers.pool import TOO_LARGE
from bot.readers.speech import transcribe
from bot.readers.unreadable import Unreadable

_REQUEST = struct.Struct(">II")
_ANSWER = struct.Struct(">I")
# A reader that holds more than this after an item (a 5 MB page leaves ~500 MiB that the
# allocator keeps) ends, rather than keep it while idle; the next item starts a new one.
RECYCLE_BYTES = 256 * 1024 * 1024


def _limit(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no gigabyte on disk


def _cpu_budget(seconds: float) -> None:
    """At most twice `seconds` more of CPU from now (the soft limit ends the process)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(used + 2 * seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard < 0 else min(soft, hard), hard))


def _read(head: dict[str, Any], payload: bytes) -> dict[str, Any]:
    kind = head.get("read")
    if kind == "document":
        text = document_text(payload, head["name"], head["mime"], max_chars=head["max_chars"])
        return {"text": text}
    if kind == "image":
        return {"text": image_text(payload)}
    if kind == "page":
        page = read_page(payload, head["url"], head["charset"], max_chars=head["max_chars"])
        return {"page": dataclasses.asdict(page)}
    if kind == "markdown":
        return {"text": markdown_of_html(payload.decode("utf-8", "replace"))}
    if kind == "speech":
        heard = transcribe(payload, head["model_dir"], head["language"], head["max_seconds"])
        return {"heard": dataclasses.asdict(heard)}
    raise ValueError(f"no reader for {kind!r}")


def answer(head: dict[str, Any], payload: bytes) -> dict[str, Any]:
    """What to send back for one request; `"exit": True` when this process should end."""
    try:
        return _read(head, payload)
    except Unreadable as exc:
        return {"unreadable": exc.reason}
    except MemoryError:
        return {"unreadable": TOO_LARGE, "exit": True}
    except RecursionError:
        return {"unreadable": "it is nested too deeply to read", "exit": True}
    except Exception:
        traceback.print_exc()
        return {"unreadable": "the reader failed on it", "exit": True}


def _resident_bytes() -> int:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def _exactly(stream: BinaryIO, size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def serve(
    requests: BinaryIO, answers: BinaryIO, seconds: float, recycle_bytes: int = RECYCLE_BYTES
) -> None:
    """Answer requests until the input ends (or an answer says to exit, or this process
    holds more than `recycle_bytes` after one)."""
    while (header := _exactly(requests, _REQUEST.size)) is not None:
        head_size, payload_size = _REQUEST.unpack(header)
        head_bytes = _exactly(requests, head_size)
        payload = _exactly(requests, payload_size)
        if head_bytes is None or payload is None:
            return
        _cpu_budget(seconds)
        reply = answer(json.loads(head_bytes), payload)
        del payload
        if _resident_bytes() > recycle_bytes:
            reply["exit"] = True
        try:
            encoded = json.dumps(reply, ensure_ascii=False).encode()
        except MemoryError:
            reply = {"unreadable": TOO_LARGE, "exit": True}
            encoded = json.dumps(reply).encode()
        answers.write(_ANSWER.pack(len(encoded)) + encoded)
        answers.flush()
        if reply.get("exit"):
            return


def main(argv: list[str]) -> int:
    memory_bytes, seconds = int(argv[0]), float(argv[1])
    recycle_bytes = int(argv[2]) if len(argv) > 2 else RECYCLE_BYTES
    if len(argv) > 3:
        os.nice(int(argv[3]))  # below the bot's own work: a long voice note waits for chat
    _limit(memory_bytes)
    faulthandler.enable()  # a reader that crashes says where, in the log
    # The wire gets its own descriptors; a stray print goes to the log.
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    serve(requests, answers, seconds, recycle_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
