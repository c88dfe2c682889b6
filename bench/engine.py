"""The conversation engine on a 10,000-note vault, with a fake OpenAI that answers
every message at once with one `capture` call (so the model's own time is not counted).

- engine time per captured message, inbound event to reply (target: median <= 15 ms),
  and the database round trips each capture makes (statements, BEGIN and COMMIT);
- 50 conversations sending 20 messages each concurrently, a tenth of them delivered
  twice as platform retries: every message captured exactly once, throughput;
- prompt tokens per message on a 100-note and a 10,000-note vault (must not grow).

Run: `python -m bench.engine [runs]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.ext.asyncio import AsyncEngine

from app.runtime import Runtime
from bench.digest import write_vault
from bot.events import Conversation, Deliver, InboundMessage, Sender
from storage.db.connection import autocommit
from tests.fakes.brain import make_settings
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripts import capture_everything

TARGET_MS = 15.0
WARMUP = 5
CONVERSATIONS = 50
PER_CONVERSATION = 20


def message(chat: str, event_id: str, text: str) -> InboundMessage:
    return InboundMessage(
        event_id,
        Conversation("bench", chat),
        Sender("bench", f"user-{chat}", "Bench"),
        text,
        datetime.now(UTC),
    )


async def open_runtime(
    root: Path, notes: int, openai: FakeOpenAI, deliver: Deliver | None = None
) -> Runtime:
    """An embedded-Postgres runtime whose vault holds `notes` imported notes (what its
    engine says after a reply goes to `deliver`)."""
    write_vault(root / "source", notes)
    # One bench sender sends far more than a person's 30 messages a minute: the flood
    # limit is not what this bench measures.
    settings = make_settings(root, None, openai, BRAINBOT_RATE_LIMIT=0)  # type: ignore[arg-type]
    runtime = await Runtime.open(settings, deliver=deliver)
    await runtime.store.import_folder(root / "source")
    return runtime


class RoundTrips:
    """Every trip to Postgres on some engines: each statement, and each BEGIN, COMMIT
    and ROLLBACK (psycopg sends those as commands of their own, except on a connection
    in autocommit). A binary COPY (the index's postings) is not seen here."""

    def __init__(self, *engines: AsyncEngine) -> None:
        self.count = 0
        for engine in engines:
            event.listen(engine.sync_engine, "before_cursor_execute", self._statement)
            for name in ("begin", "commit", "rollback"):
                event.listen(engine.sync_engine, name, self._transaction)

    @classmethod
    def of(cls, database: Any) -> RoundTrips:
        """Every trip of a database: its engine, the engine's autocommit face (an engine
        of its own) and the locks' engine."""
        return cls(database.engine, autocommit(database.engine), database.locks)

    def _statement(self, *args: Any) -> None:
        self.count += 1

    def _transaction(self, conn: Connection) -> None:
        if not conn.connection.dbapi_connection.autocommit:  # type: ignore[union-attr]
            self.count += 1


async def sequential(runtime: Runtime, runs: int) -> tuple[list[float], list[int]]:
    """(milliseconds, round trips) of each captured message, one after the other."""
    database = runtime.database
    trips = RoundTrips.of(database)
    timings, counts = [], []
    for number in range(WARMUP + runs):
        before = trips.count
        started = time.perf_counter()
        replies = await runtime.engine.handle(message("solo", f"s{number}", f"seq note {number}"))
        elapsed = (time.perf_counter() - started) * 1000
        if not replies or "Saved to" not in replies[0].text:
            raise RuntimeError(f"unexpected reply: {replies}")
        if number >= WARMUP:
            timings.append(elapsed)
            counts.append(trips.count - before)
    return timings, counts


async def concurrent(runtime: Runtime) -> tuple[float, int, int]:
    """(seconds, captures logged, notes on disk) for 50 x 20 messages with retries."""
    before = _ideas_everywhere(runtime)

    async def talk(chat: int) -> None:
        for n in range(PER_CONVERSATION):
            event = message(f"c{chat}", f"c{chat}-{n}", f"conversation {chat} thought {n}")
            deliveries = [runtime.engine.handle(event)]
            if n % 10 == 0:
                deliveries.append(runtime.engine.handle(event))  # a platform retry
            await asyncio.gather(*deliveries)

    started = time.perf_counter()
    await asyncio.gather(*(talk(chat) for chat in range(CONVERSATIONS)))
    elapsed = time.perf_counter() - started
    logged = [
        row
        for row in await runtime.records.tool_log.calls()
        if row.tool == "capture" and row.conversation_key.startswith("bench:c")
    ]
    on_disk = _ideas_everywhere(runtime) - before
    return elapsed, len(logged), on_disk


def _ideas_everywhere(runtime: Runtime) -> int:
    """Ideas filed in every vault: each conversation's sender files into their own."""
    settings = runtime.settings
    roots = [settings.vault_dir, *(settings.data_dir / "vaults").glob("*")]
    return sum(len(list((root / "ideas").glob("*.md"))) for root in roots)


async def prompt_tokens(runtime: Runtime) -> int:
    await runtime.engine.handle(message("tokens", "t1", "a thought to measure the prompt"))
    return runtime.engine.last_prompt_tokens


async def run(runs: int = 100) -> dict[str, float]:
    openai = FakeOpenAI()
    openai.responder = capture_everything
    await openai.start()
    try:
        with tempfile.TemporaryDirectory(prefix="brainbot-bench-engine-") as tmp:
            small = await open_runtime(Path(tmp) / "small", 100, openai)
            try:
                small_tokens = await prompt_tokens(small)
            finally:
                await small.close()
            big = await open_runtime(Path(tmp) / "big", 10_000, openai)
            try:
                big_tokens = await prompt_tokens(big)
                timings, trips = await sequential(big, runs)
                seconds, logged, on_disk = await concurrent(big)
            finally:
                await big.close()
    finally:
        await openai.stop()
    expected = CONVERSATIONS * PER_CONVERSATION
    if logged != expected or on_disk != expected:
        raise RuntimeError(f"expected {expected} captures, logged {logged}, on disk {on_disk}")
    return {
        "median_ms": statistics.median(timings),
        "round_trips": statistics.median(trips),
        "p90_ms": statistics.quantiles(timings, n=10)[-1],
        "throughput": expected / seconds,
        "captured": float(on_disk),
        "tokens_100": float(small_tokens),
        "tokens_10k": float(big_tokens),
    }


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when the median misses its target."""
    runs = int(argv[0]) if argv else 100
    r = asyncio.run(run(runs))
    print(
        f"engine: capture, event to reply on 10,000 notes, {runs} runs: median "
        f"{r['median_ms']:.1f} ms, p90 {r['p90_ms']:.1f} ms (target ≤ {TARGET_MS:.0f} ms), "
        f"{r['round_trips']:.0f} database round trips\n"
        f"engine: {CONVERSATIONS} conversations x {PER_CONVERSATION} messages concurrently "
        f"(10% delivered twice): {r['captured']:.0f} captured exactly once, "
        f"{r['throughput']:.1f} messages/s\n"
        f"engine: prompt tokens per message: {r['tokens_100']:.0f} with 100 notes, "
        f"{r['tokens_10k']:.0f} with 10,000 notes"
    )
    return 0 if r["median_ms"] <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
