"""Messages while the model server cannot be reached at all (nothing listening on its
port), with the default retries (`BRAINBOT_LLM_RETRIES=2`): seconds per message, inbound
event to reply. The first message waits through the retries; the ones after it must
not (target: median <= 0.5 s), questions answered by keyword search, thoughts kept.

Run: `python -m bench.outage [messages]`.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.events import Conversation, InboundMessage, Sender
from tests.fakes.brain import running_brain

TARGET_SECONDS = 0.5
MESSAGES = ("what did I write about tea?", "try oolong next", "Which notes mention tea?")


def _closed_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return int(free.getsockname()[1])


async def measure(count: int) -> list[float]:
    seconds: list[float] = []
    with tempfile.TemporaryDirectory(prefix="brainbot-outage-") as tmp:
        embedded: Any = None  # no DATABASE_URL: the runtime starts its own Postgres
        async with running_brain(
            Path(tmp),
            embedded,
            OPENAI_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1",
            OPENAI_API_KEY="bench",
            BRAINBOT_LLM_RETRIES=2,
        ) as brain:
            chat, person = Conversation("bench", "c1"), Sender("bench", "U1", "Ada")
            for n in range(count):
                text = MESSAGES[n % len(MESSAGES)]
                event = InboundMessage(f"m{n}", chat, person, text, datetime.now(UTC))
                started = time.perf_counter()
                await brain.engine.handle(event)
                seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: Sequence[str] = ()) -> int:
    count = int(argv[0]) if argv else 20
    seconds = asyncio.run(measure(count))
    later = statistics.median(seconds[1:])
    print(f"first message: {seconds[0]:.2f} s (waits through the retries)")
    print(f"messages after it: median {later:.3f} s, max {max(seconds[1:]):.3f} s")
    print(f"target: median <= {TARGET_SECONDS} s")
    return 0 if later <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
