"""The reminder poll on a 10,000-note vault where 1,000 notes carry a reminder.
Target: a poll with nothing to send, median <= 100 ms (the leader polls every 10 s).

The generated vault of bench.digest gets `remind` times: 900 over the next month,
100 due in the last hour (a catch-up after downtime). The first poll sends those
100 (claim, button actions, the send, the log) to a `deliver` that only counts;
later polls find nothing new. Postgres is the embedded one in a temporary folder
unless DATABASE_URL is set.

Run: `python -m bench.reminders [polls]`.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import frontmatter

from app.runtime import Runtime
from app.scheduling import build_service
from bench.digest import write_vault
from bot.config import Settings
from bot.events import Conversation, Reply

TARGET_MS = 100.0
NOTES = 10_000
WITH_REMINDERS = 1_000
DUE_NOW = 100
NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def add_reminders(folder: Path, seed: int = 11) -> None:
    """Give WITH_REMINDERS open notes a `remind`; DUE_NOW of them in the last hour."""
    rng = random.Random(seed)
    paths = sorted(folder.rglob("*.md"))
    chosen = rng.sample(paths, WITH_REMINDERS)
    for number, path in enumerate(chosen):
        note = frontmatter.load(path)
        note["status"] = None
        if number < DUE_NOW:
            note["remind"] = (NOW - timedelta(minutes=rng.randrange(60))).isoformat()
        else:
            note["remind"] = (NOW + timedelta(minutes=rng.randrange(1, 30 * 1440))).isoformat()
        path.write_text(frontmatter.dumps(note) + "\n", encoding="utf-8")


async def run(polls: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-reminders-") as tmp:
        root = Path(tmp)
        write_vault(root / "source", NOTES)
        add_reminders(root / "source")
        settings = Settings(
            BRAINBOT_DATA_DIR=root / "data",
            DATABASE_URL=os.environ.get("DATABASE_URL"),
            BRAINBOT_EMBEDDINGS="none",
            BRAINBOT_TIMEZONE="Europe/Berlin",
        )
        runtime = await Runtime.open(settings, clock=lambda: NOW)
        try:
            person = await runtime.records.people.add(
                platform="bench",
                platform_user_id="U1",
                name="Ada",
                timezone="Europe/Berlin",
                home_chat_id="D1",
                now=NOW,
            )
            vault = await runtime.vaults.of_person(person.id, person.name, NOW)
            store = await runtime.vaults.store(vault)
            await store.import_folder(root / "source")
            sent: list[Reply] = []

            async def deliver(conversation: Conversation, reply: Reply) -> None:
                sent.append(reply)

            service = build_service(runtime, deliver)
            assert service.reminders is not None
            started = time.perf_counter()
            await service.reminders.run_due(NOW)
            first = time.perf_counter() - started
            if len(sent) != DUE_NOW:
                raise RuntimeError(f"sent {len(sent)} reminders, expected {DUE_NOW}")
            timings: list[float] = []
            for _ in range(polls):
                started = time.perf_counter()
                await service.reminders.run_due(NOW)
                timings.append((time.perf_counter() - started) * 1000)
            if len(sent) != DUE_NOW:
                raise RuntimeError("a later poll sent a reminder again")
        finally:
            await runtime.close()
    return {
        "first_s": first,
        "median_ms": statistics.median(timings),
        "p90_ms": statistics.quantiles(timings, n=10)[-1],
    }


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when the idle poll's median misses the target."""
    polls = int(argv[0]) if argv else 30
    result = asyncio.run(run(polls))
    print(
        f"reminders: {NOTES:,} notes, {WITH_REMINDERS:,} with a reminder: the catch-up poll "
        f"sent {DUE_NOW} in {result['first_s']:.2f} s "
        f"({result['first_s'] / DUE_NOW * 1000:.1f} ms each); a poll with nothing new, "
        f"{polls} runs: median {result['median_ms']:.1f} ms, p90 {result['p90_ms']:.1f} ms "
        f"(target ≤ {TARGET_MS:.0f} ms)"
    )
    return 0 if result["median_ms"] <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
