"""The capture reply's latency with a link in the message, with reading the page on and
off (`BRAINBOT_FETCH`): reading happens after the reply, so the reply must not wait for
it (target: the median with reading on within 20 % + 5 ms of the median without).
Also how long the page takes to land in the note after the reply.

The page is a ~200 KB article served on 127.0.0.1 (the capture goes through the fake
model's one `capture` call, as in bench.engine).

Run: `python -m bench.enrich [messages]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Sequence

from aiohttp import web

from bot.events import Conversation, InboundMessage, Sender
from tests.fakes.brain import instant_model_brain

SLACK = 1.2
SLACK_MS = 5.0


def _article() -> str:
    paragraph = (
        "<p>Community gardens turn vacant lots into shared plots where neighbours grow "
        "vegetables, trade seeds and compost kitchen scraps together. {n}</p>\n"
    )
    body = "".join(paragraph.format(n=n) for n in range(1400))
    return (
        "<html><head><title>Community gardens</title></head><body><nav>Home About</nav>"
        f"<article><h1>Community gardens</h1>{body}</article></body></html>"
    )


async def _serve() -> tuple[web.AppRunner, str]:
    page = _article()

    async def article(request: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html")

    app = web.Application()
    app.router.add_get("/{name}", article)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def measure(count: int, fetch: bool) -> tuple[list[float], list[float]]:
    """Seconds to the reply per message, and seconds from reply to the page in the note."""
    runner, site = await _serve()
    replies: list[float] = []
    landed: list[float] = []
    try:
        async with instant_model_brain(
            "brainbot-bench-enrich-",
            BRAINBOT_FETCH=str(fetch).lower(),
            BRAINBOT_FETCH_ALLOW_PRIVATE="true",
        ) as brain:
            enricher = brain.engine.enricher
            enricher.start_after = 0.0
            chat, person = Conversation("bench", "c1"), Sender("bench", "U1", "Ada")
            for n in range(count):
                text = f"garden idea {n} {site}/page-{n}"
                event = InboundMessage(f"m{n}", chat, person, text, brain.engine.clock())
                started = time.perf_counter()
                await brain.engine.handle(event)
                replied = time.perf_counter()
                replies.append(replied - started)
                await enricher.wait_idle()
                landed.append(time.perf_counter() - replied)
    finally:
        await runner.cleanup()
    return replies, landed


def main(argv: Sequence[str] = ()) -> int:
    count = int(argv[0]) if argv else 20
    off, _ = asyncio.run(measure(count, fetch=False))
    on, landed = asyncio.run(measure(count, fetch=True))
    median_off = statistics.median(off[1:]) * 1000
    median_on = statistics.median(on[1:]) * 1000
    print(f"capture reply, reading off: median {median_off:.1f} ms")
    print(f"capture reply, reading on:  median {median_on:.1f} ms")
    print(f"page in the note after the reply: median {statistics.median(landed) * 1000:.0f} ms")
    ok = median_on <= median_off * SLACK + SLACK_MS
    print(f"reply unchanged by reading: {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
