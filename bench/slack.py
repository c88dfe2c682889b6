"""Slack reply latency: a signed DM event POSTed to the bot (HTTP mode) until the
fake Slack Web API receives the reply's chat.postMessage. Target: median <= 60 ms.

By default the real engine answers (temporary vault, embedded Postgres, a fake
OpenAI that at once returns one `capture` call, so every DM is filed as a note);
`--adapter-only` swaps in a handler that answers at once, timing the adapter alone.

Run: `python -m bench.slack [runs] [--adapter-only]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import aiohttp
from aiohttp import web

from adapters.slack.app import SlackAdapter
from bot.events import Event, EventHandler, Reply
from tests.fakes.slack_api import BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import SIGNING_SECRET, dm_event, event_body, post_signed

TARGET_MS = 60.0
WARMUP = 3


async def echo(event: Event) -> Sequence[Reply]:
    """A handler that answers at once: measures the adapter alone."""
    return [Reply(text="Filed under ideas/benchmark.md")]


@asynccontextmanager
async def slack_bot(fake: FakeSlack, on_event: EventHandler) -> AsyncIterator[str]:
    """A SlackAdapter in HTTP mode on 127.0.0.1; yields its /slack/events URL."""
    adapter = SlackAdapter(BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=fake.api_url)
    app = web.Application()
    adapter.mount(app)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    await adapter.start(on_event)
    try:
        yield f"http://127.0.0.1:{port}/slack/events"
    finally:
        await adapter.stop()
        await runner.cleanup()


async def measure(fake: FakeSlack, url: str, runs: int) -> list[float]:
    """Milliseconds from POSTing each DM until its chat.postMessage reached the fake."""
    timings: list[float] = []
    async with aiohttp.ClientSession() as session:
        for number in range(WARMUP + runs):
            body = event_body(dm_event(f"benchmark thought {number}"))
            posted = len(fake.ok_calls("chat.postMessage"))
            started = time.monotonic()
            status, _ = await post_signed(session, url, body)
            if status != 200:
                raise RuntimeError(f"the bot answered {status}")
            [*_, reply] = await fake.wait_for("chat.postMessage", posted + 1, within=10)
            if number >= WARMUP:
                timings.append((reply.at - started) * 1000)
    return timings


@asynccontextmanager
async def real_engine() -> AsyncIterator[EventHandler]:
    """The engine on a temporary vault and embedded Postgres, its LLM a fake that
    answers every message at once with one `capture` call."""
    from tests.fakes.brain import instant_model_brain

    async with instant_model_brain("brainbot-bench-slack-") as brain:
        yield brain.engine.handle


async def run(runs: int = 50, *, adapter_only: bool = False) -> dict[str, float]:
    """Median and p90 reply latency over `runs` DMs."""
    fake = FakeSlack()
    await fake.start()
    try:
        if adapter_only:
            async with slack_bot(fake, echo) as url:
                timings = await measure(fake, url, runs)
        else:
            async with real_engine() as handle, slack_bot(fake, handle) as url:
                timings = await measure(fake, url, runs)
    finally:
        await fake.close()
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
        f"slack ({what}): signed DM → chat.postMessage, {runs} runs: "
        f"median {result['median_ms']:.1f} ms, p90 {result['p90_ms']:.1f} ms "
        f"(target ≤ {TARGET_MS:.0f} ms)"
    )
    return 0 if result["median_ms"] <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
