"""Telegram reply latency: from the moment the fake Bot API hands an update to the
bot's getUpdates long poll until it receives the reply's sendMessage.
Target: median <= 60 ms.

Run: `python -m bench.telegram [runs]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from adapters.base import EventHandler
from adapters.telegram import TelegramAdapter
from bot.events import Event, Reply
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates

TARGET_MS = 60.0
WARMUP = 3


async def echo(event: Event) -> Sequence[Reply]:
    """A handler that answers at once: measures the adapter alone."""
    return [Reply(text="Filed under ideas/benchmark.md")]


@asynccontextmanager
async def telegram_bot(fake: FakeTelegram, on_event: EventHandler) -> AsyncIterator[None]:
    """A polling TelegramAdapter connected to the fake."""
    adapter = TelegramAdapter(fake.token, api_url=fake.root)
    await adapter.start(on_event)
    try:
        yield
    finally:
        await adapter.stop()


async def measure(fake: FakeTelegram, runs: int) -> list[float]:
    """Milliseconds from getUpdates returning each message until its sendMessage arrived."""
    updates = Updates()
    timings: list[float] = []
    for number in range(WARMUP + runs):
        sent = len(fake.calls("sendMessage"))
        update_id = fake.queue_update(updates.message(f"benchmark thought {number}"))
        await fake.wait_for("sendMessage", sent + 1, within=10)
        reply = [r for r in fake.requests if r.method == "sendMessage"][-1]
        if number >= WARMUP:
            timings.append((reply.at - fake.delivered_at[update_id]) * 1000)
    return timings


async def run(runs: int = 50, on_event: EventHandler = echo) -> dict[str, float]:
    """Median and p90 reply latency over `runs` messages."""
    async with FakeTelegram() as fake, telegram_bot(fake, on_event):
        timings = await measure(fake, runs)
    return {
        "runs": float(runs),
        "median_ms": statistics.median(timings),
        "p90_ms": statistics.quantiles(timings, n=10)[-1],
    }


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when the median misses the target."""
    runs = int(argv[0]) if argv else 50
    result = asyncio.run(run(runs))
    print(
        f"telegram: getUpdates → sendMessage, {runs} runs: "
        f"median {result['median_ms']:.1f} ms, p90 {result['p90_ms']:.1f} ms "
        f"(target ≤ {TARGET_MS:.0f} ms)"
    )
    return 0 if result["median_ms"] <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
