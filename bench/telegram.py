"""Telegram reply latency: from the moment the fake Bot API hands an update to the
bot's getUpdates long poll until it receives the reply's sendMessage.
Target: median <= 60 ms.

By default the real engine answers (temporary vault, embedded Postgres, a fake
OpenAI that at once returns one `capture` call, so every message is filed as a
note); `--adapter-only` swaps in a handler that answers at once, timing the
adapter alone.

Run: `python -m bench.telegram [runs] [--adapter-only]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from adapters.telegram.app import TelegramAdapter
from bot.events import Event, EventHandler, Reply
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


@asynccontextmanager
async def real_engine() -> AsyncIterator[EventHandler]:
    """The engine on a temporary vault and embedded Postgres, its LLM a fake that
    answers every message at once with one `capture` call."""
    from tests.fakes.brain import instant_model_brain

    async with instant_model_brain(
        # One sender, many messages: the flood limit is not what this bench measures.
        "brainbot-bench-telegram-",
        BRAINBOT_ALLOWED_USERS="telegram:42",
        BRAINBOT_RATE_LIMIT=0,
    ) as brain:
        yield brain.engine.handle


async def measure(fake: FakeTelegram, runs: int) -> list[float]:
    """Milliseconds from getUpdates returning each message until its sendMessage arrived."""
    updates = Updates()
    timings: list[float] = []
    for number in range(WARMUP + runs):
        sent = len(fake.calls("sendMessage"))
        update_id = fake.queue_update(updates.message(f"benchmark thought {number}"))
        await fake.wait_for("sendMessage", sent + 1, within=10)
        reply = [r for r in fake.requests if r.method == "sendMessage"][-1]
        if "ideas/" not in reply.params["text"]:
            raise RuntimeError(f"unexpected reply: {reply.params['text']!r}")
        if number >= WARMUP:
            timings.append((reply.at - fake.delivered_at[update_id]) * 1000)
    return timings


async def run(runs: int = 50, *, adapter_only: bool = False) -> dict[str, float]:
    """Median and p90 reply latency over `runs` messages."""
    async with FakeTelegram() as fake:
        if adapter_only:
            async with telegram_bot(fake, echo):
                timings = await measure(fake, runs)
        else:
            async with real_engine() as handle, telegram_bot(fake, handle):
                timings = await measure(fake, runs)
    return {
        "runs": float(runs),
        "median_ms": statistics.median(timings),
        "p90_ms": statistics.quantiles(timings, n=10)[-1],
    }


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when the median misses the target."""
    adapter_only = "--adapter-only" in argv
    numbers = [arg for arg in argv if arg.isdigit()]
    runs = int(numbers[0]) if numbers else 50
    result = asyncio.run(run(runs, adapter_only=adapter_only))
    what = "adapter only" if adapter_only else "real engine, fake OpenAI"
    print(
        f"telegram ({what}): getUpdates → sendMessage, {runs} runs: "
        f"median {result['median_ms']:.1f} ms, p90 {result['p90_ms']:.1f} ms "
        f"(target ≤ {TARGET_MS:.0f} ms)"
    )
    return 0 if result["median_ms"] <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
