"""One process leads; when it dies, another takes over."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from scheduler.leader import Leadership
from tests.scheduler.conftest import async_url


class Terms:
    """Records when a process is elected and deposed."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.changed = asyncio.Event()

    async def elected(self) -> None:
        self.events.append("elected")
        self.changed.set()

    async def deposed(self) -> None:
        self.events.append("deposed")
        self.changed.set()


def _leadership(engine: AsyncEngine, terms: Terms) -> Leadership:
    return Leadership(engine, on_elected=terms.elected, on_deposed=terms.deposed, poll_seconds=0.05)


async def _until(condition: Callable[[], bool], changed: asyncio.Event) -> None:
    async def wait() -> None:
        while not condition():
            changed.clear()
            await changed.wait()

    await asyncio.wait_for(wait(), 10)


async def test_one_leader_and_a_takeover_when_it_dies(database_url: str) -> None:
    engines = [create_async_engine(async_url(database_url)) for _ in range(2)]
    terms = [Terms(), Terms()]
    first, second = (_leadership(e, t) for e, t in zip(engines, terms, strict=True))
    try:
        await first.start()
        await second.start()
        assert first.is_leader and not second.is_leader
        assert terms[1].events == []

        # The leader's process dies: Postgres ends its session, and with it the lock.
        async with engines[0].connect() as admin:
            await admin.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks "
                    "WHERE locktype = 'advisory' AND granted"
                )
            )
        await _until(lambda: terms[1].events == ["elected"], terms[1].changed)
        await _until(lambda: terms[0].events == ["elected", "deposed"], terms[0].changed)
        assert second.is_leader and not first.is_leader
        # The old leader keeps polling, but the lock is taken now.
        await first.poll()
        assert not first.is_leader
    finally:
        await first.stop()
        await second.stop()
        for engine in engines:
            await engine.dispose()


async def test_stopping_the_leader_hands_over_at_the_next_poll(database_url: str) -> None:
    engines = [create_async_engine(async_url(database_url)) for _ in range(2)]
    terms = [Terms(), Terms()]
    first, second = (_leadership(e, t) for e, t in zip(engines, terms, strict=True))
    try:
        await first.start()
        await second.start()
        await first.stop()
        assert terms[0].events == ["elected", "deposed"]
        await _until(lambda: second.is_leader, terms[1].changed)
    finally:
        await second.stop()
        for engine in engines:
            await engine.dispose()


async def test_a_failing_start_keeps_the_lock_and_is_tried_again(engine: AsyncEngine) -> None:
    attempts: list[int] = []
    terms = Terms()

    async def broken() -> None:
        attempts.append(1)
        if len(attempts) < 3:
            raise RuntimeError("no scheduler today")

    other = Terms()
    leadership = Leadership(engine, on_elected=broken, on_deposed=terms.deposed, poll_seconds=60)
    rival = _leadership(engine, other)
    try:
        assert await leadership.poll()
        assert not await rival.poll()  # a failed start is no reason to hand the lock over
        assert await leadership.poll() and await leadership.poll() and await leadership.poll()
        # Tried again at each poll until it worked, then not again; never deposed.
        assert len(attempts) == 3 and terms.events == [] and other.events == []
    finally:
        await leadership.stop()
        await rival.stop()


async def test_a_failing_refresh_does_not_cost_the_leadership(engine: AsyncEngine) -> None:
    terms = Terms()
    refreshes: list[int] = []

    async def refresh() -> None:
        refreshes.append(1)
        raise RuntimeError("users table unreadable for a moment")

    leadership = Leadership(
        engine,
        on_elected=terms.elected,
        on_deposed=terms.deposed,
        while_leading=refresh,
        poll_seconds=60,
    )
    assert await leadership.poll()
    assert await leadership.poll() and await leadership.poll()
    assert len(refreshes) == 2 and terms.events == ["elected"]
    await leadership.stop()
