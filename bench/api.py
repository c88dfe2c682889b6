"""The capture API on a 10,000-note vault, over real HTTP on 127.0.0.1, with the fake
model answering every chat at once (API captures are filed by `/capture` and do not
ask it):

- request to 201 per capture (target: median <= 40 ms);
- 100 captures sent at once, each Idempotency-Key used by 4 of them: every key's
  note filed once, and every request answered 201 with that note.

Run: `python -m bench.api [runs]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import aiohttp

from app.api import CaptureApi
from app.commands.token import owner
from app.http import HttpServer
from bench.engine import open_runtime
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripts import capture_everything

TARGET_MS = 40.0
NOTES = 10_000


async def run(runs: int) -> tuple[list[float], int, int, int]:
    openai = FakeOpenAI()
    openai.responder = capture_everything
    await openai.start()
    try:
        with tempfile.TemporaryDirectory(prefix="brainbot-bench-api-") as tmp:
            runtime = await open_runtime(Path(tmp), NOTES, openai)
            http = HttpServer("127.0.0.1", 0)
            api = CaptureApi()
            api.mount(http.app)
            await http.start()
            api.start(runtime)
            try:
                return await _measure(runtime, http.port, runs)
            finally:
                api.stop()
                await http.stop()
                await runtime.close()
    finally:
        await openai.stop()


async def _measure(runtime: object, port: int, runs: int) -> tuple[list[float], int, int, int]:
    person = await owner(runtime)  # type: ignore[arg-type]
    assert person is not None
    tokens = runtime.records.mcp_tokens  # type: ignore[attr-defined]
    _, token = await tokens.create(person.id, "bench", runtime.engine.clock())  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{port}/api/v1/capture"
    headers = {"Authorization": f"Bearer {token}"}
    seconds: list[float] = []
    async with aiohttp.ClientSession() as session:
        for n in range(runs):
            started = time.perf_counter()
            async with session.post(url, json={"text": f"bench idea {n}"}, headers=headers) as r:
                assert r.status == 201, await r.text()
                await r.read()
            seconds.append(time.perf_counter() - started)

        async def once(n: int) -> tuple[int, str]:
            key = {"Idempotency-Key": f"together-{n % 25}", **headers}
            async with session.post(url, json={"text": f"together {n % 25}"}, headers=key) as r:
                return r.status, (await r.json()).get("path", "")

        answers = await asyncio.gather(*(once(n) for n in range(100)))
    created = sum(status == 201 for status, _ in answers)
    paths = {path for _, path in answers}
    store = runtime.store  # type: ignore[attr-defined]
    filed = len([e for e in await store.list(limit=200) if e.title.lower().startswith("together ")])
    return seconds, created, len(paths), filed


def main(argv: Sequence[str] = ()) -> int:
    runs = int(argv[0]) if argv else 50
    seconds, created, paths, filed = asyncio.run(run(runs))
    median = statistics.median(seconds[1:]) * 1000
    p90 = statistics.quantiles(seconds[1:], n=10)[-1] * 1000
    print(
        f"API capture on {NOTES:,} notes, request to 201: median {median:.1f} ms, p90 {p90:.1f} ms"
    )
    print(f"100 at once, 25 keys: {created} answered 201, {paths} distinct notes, {filed} filed")
    ok = median <= TARGET_MS and created == 100 and paths == 25 and filed == 25
    print(f"targets (median <= {TARGET_MS:g} ms; each key's note once): {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
