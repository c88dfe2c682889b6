"""bench.walk's counting, on a tiny call chain of two made-up project modules: a call
into another module and the return from it are stops, a coroutine waiting and resuming
is not, and coming back to a module already left is a return."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.walk import Walk, module_of

CALLER = """
from storage import callee

def twice():
    callee.plain()
    return callee.plain()

async def waits():
    return await callee.slow()
"""
CALLEE = """
import asyncio

def plain():
    return 1

async def slow():
    for _ in range(3):
        await asyncio.sleep(0)
    return 2
"""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """`bot/caller.py` calling `storage/callee.py`, importable as those names."""
    for package, name, text in (("bot", "caller", CALLER), ("storage", "callee", CALLEE)):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / f"{name}.py").write_text(text)
    saved = {
        name: sys.modules.pop(name) for name in list(sys.modules) if name in ("bot", "storage")
    }
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("bot", "bot.caller", "storage", "storage.callee"):
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def test_a_module_is_named_only_inside_the_project(tmp_path: Path) -> None:
    assert module_of(str(tmp_path / "bot" / "turn" / "loop.py"), tmp_path) == "bot.turn.loop"
    assert module_of(str(tmp_path / "storage" / "__init__.py"), tmp_path) == "storage"
    assert module_of(str(tmp_path / "tests" / "fakes" / "brain.py"), tmp_path) is None
    assert module_of("<string>", tmp_path) is None


def test_calls_and_returns_across_modules_are_stops(project: Path) -> None:
    caller = importlib.import_module("bot.caller")
    walk = Walk(root=project)
    sys.setprofile(walk.profile)
    try:
        caller.twice()
    finally:
        sys.setprofile(None)

    assert walk.stops == [
        "bot.caller",
        "storage.callee",
        "bot.caller",
        "storage.callee",
        "bot.caller",
    ]
    assert walk.modules == 2
    assert dict(walk.returns) == {"bot.caller": 2, "storage.callee": 1}


def test_a_coroutine_waiting_has_not_moved(project: Path) -> None:
    caller = importlib.import_module("bot.caller")
    walk = Walk(root=project)

    async def measured() -> int:
        sys.setprofile(walk.profile)
        try:
            return int(await caller.waits())
        finally:
            sys.setprofile(None)

    assert asyncio.run(measured()) == 2
    assert walk.stops == ["bot.caller", "storage.callee", "bot.caller"]
    assert walk.total_returns == 1
