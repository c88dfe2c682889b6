"""The walk of one Telegram capture through the project's modules.

A text message goes from the fake Bot API through the real Telegram adapter (PTB
polling) to the real engine (temporary vault, embedded Postgres, a fake OpenAI that
answers at once with one `capture` call), until the reply's sendMessage reaches the
fake. Every Python call and return on the way is watched (`sys.setprofile`, also in
the worker threads the vault writes in), and each time the running code moves from
one project module (app/, adapters/, bot/, scheduler/, storage/, storage/text/) to
another is a *stop*; a stop into a module the walk had already left is a *return*.
Library code in between (PTB, SQLAlchemy, asyncio) is passed through, not counted.

Targets: at most 65 stops and 35 returns. A warm-up capture goes first, so what the
first message alone does (opening the vault, filling caches) is not counted.

Run: `python -m bench.walk [--stops]` (`--stops` also prints every stop in order).
"""

from __future__ import annotations

import asyncio
import dis
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from inspect import CO_ASYNC_GENERATOR, CO_COROUTINE, CO_GENERATOR, CO_ITERABLE_COROUTINE
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "adapters", "bot", "scheduler", "storage", "storage.text")
TARGET_STOPS = 65
TARGET_RETURNS = 35
SETTLE = 1.0  # seconds the warm-up's after-reply work is given to finish
# Code whose frame suspends and resumes: coroutines and generators of every kind.
SUSPENDS = CO_COROUTINE | CO_GENERATOR | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE
YIELD_VALUE = dis.opmap["YIELD_VALUE"]


def module_of(filename: str, root: Path = ROOT) -> str | None:
    """The dotted project module a code object's file is, or None outside the project."""
    path = Path(filename)
    if not path.is_absolute() or path.suffix != ".py":
        return None
    try:
        parts = path.relative_to(root).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in PACKAGES:
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _finished(frame: FrameType) -> bool:
    """Whether a coroutine or generator frame that gives control back is done (it
    returned or raised) rather than suspended at a yield or an await."""
    return frame.f_code.co_code[frame.f_lasti] != YIELD_VALUE


@dataclass
class Walk:
    """The stops of one walk, in the order they happen. A call from a function of one
    project module into another's is a stop, and so is the callee's return to it; a
    coroutine suspended and resumed has not moved. Each call is seen from its nearest
    project caller, so concurrent tasks and library code in between do not blur it."""

    root: Path = ROOT
    stops: list[str] = field(default_factory=list)
    returns: Counter[str] = field(default_factory=Counter)
    _left: set[str] = field(default_factory=set)
    _running: dict[int, FrameType] = field(default_factory=dict)  # started coroutines
    _modules: dict[str, str | None] = field(default_factory=dict)  # file -> module

    def _module(self, frame: FrameType) -> str | None:
        filename = frame.f_code.co_filename
        if filename not in self._modules:
            self._modules[filename] = module_of(filename, self.root)
        return self._modules[filename]

    def _caller(self, frame: FrameType) -> str | None:
        """The module of the nearest project frame that (through library code) called."""
        caller = frame.f_back
        while caller is not None:
            module = self._module(caller)
            if module is not None:
                return module
            caller = caller.f_back
        return None

    def move(self, source: str | None, target: str) -> None:
        """The walk goes from `source` (None: from outside) to `target`: a stop if they
        differ, a return if the walk had left `target` before."""
        if source == target:
            return
        if source is not None:
            self._left.add(source)
        if target in self._left:
            self.returns[target] += 1
        self.stops.append(target)

    def profile(self, frame: FrameType, what: str, arg: Any) -> None:
        """A `sys.setprofile` function: a first call goes from the caller's module to
        the frame's, a last return back; a coroutine's resume and suspend are passed."""
        if what not in ("call", "return"):
            return
        module = self._module(frame)
        if module is None:
            return
        suspends = frame.f_code.co_flags & SUSPENDS
        if what == "call":
            if suspends:
                if id(frame) in self._running:
                    return  # resumed
                self._running[id(frame)] = frame
            self.move(self._caller(frame), module)
        else:
            if suspends:
                if not _finished(frame):
                    return  # suspended
                self._running.pop(id(frame), None)
            caller = self._caller(frame)
            if caller is not None:
                self.move(module, caller)

    @property
    def modules(self) -> int:
        return len(set(self.stops))

    @property
    def total_returns(self) -> int:
        return sum(self.returns.values())


class Threads:
    """A profile hook on every thread made from now on, forwarding to the walk being
    taken (the loop's worker threads start before the walk does)."""

    def __init__(self) -> None:
        self.walk: Walk | None = None

    def hook(self, frame: FrameType, what: str, arg: Any) -> None:
        if self.walk is not None:
            self.walk.profile(frame, what, arg)


async def capture_walk() -> Walk:
    """Send a warm-up capture, then the one whose walk is taken."""
    from adapters.telegram.app import TelegramAdapter
    from bench.telegram import real_engine
    from tests.fakes.telegram_api import FakeTelegram
    from tests.fakes.telegram_updates import Updates

    threads = Threads()
    threading.setprofile(threads.hook)
    walk = Walk()
    async with FakeTelegram() as fake, real_engine() as handle:
        adapter = TelegramAdapter(fake.token, api_url=fake.root)
        await adapter.start(handle)
        try:
            updates = Updates()
            for number, taken in enumerate((False, True)):
                sent = len(fake.calls("sendMessage"))
                if taken:
                    threads.walk = walk
                    sys.setprofile(walk.profile)
                fake.queue_update(updates.message(f"remember to water the plants {number}"))
                try:
                    await fake.wait_for("sendMessage", sent + 1, within=15)
                finally:
                    sys.setprofile(None)
                    threads.walk = None
                reply = fake.calls("sendMessage")[-1]["text"]
                if "ideas/" not in reply:
                    raise RuntimeError(f"unexpected reply: {reply!r}")
                # What the warm-up left running after its reply (the people and projects
                # it names, related notes) must not walk through the measured capture.
                await asyncio.sleep(SETTLE)
        finally:
            await adapter.stop()
            threading.setprofile(None)  # type: ignore[arg-type]
    return walk


def report(walk: Walk, *, every_stop: bool = False) -> str:
    """The walk's figures, the modules returned to most, and optionally every stop."""
    top = ", ".join(f"{m} x{n}" for m, n in walk.returns.most_common(8))
    lines = [
        f"walk: one Telegram text capture, update to reply: {walk.modules} modules, "
        f"{len(walk.stops)} stops (target ≤ {TARGET_STOPS}), {walk.total_returns} returns "
        f"(target ≤ {TARGET_RETURNS})",
        f"walk: returned to most: {top or 'none'}",
    ]
    if every_stop:
        lines += [f"  {n:3} {m}" for n, m in enumerate(walk.stops, 1)]
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    """Print the walk; exit 1 when it misses a target."""
    walk = asyncio.run(capture_walk())
    print(report(walk, every_stop="--stops" in argv))
    return 0 if len(walk.stops) <= TARGET_STOPS and walk.total_returns <= TARGET_RETURNS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
