"""A real brainbot runtime for tests: a temporary vault, a fresh database, and
(optionally) the fake OpenAI server, with a clock the test controls."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.platforms import settings_class
from app.runtime import Runtime
from bot.config import Settings
from bot.events import Conversation, Deliver, Reply
from bot.people import ChatMembers
from tests.fakes.openai_server import FakeOpenAI


class Clock:
    """A settable clock: `clock()` is now; `clock.advance(hours=1)` moves it."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 20, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Told:
    """A `deliver` that keeps what it is given: what people were told after a reply
    (a page that could not be read, related notes, a timeline line)."""

    def __init__(self) -> None:
        self.messages: list[tuple[Conversation, Reply]] = []

    async def __call__(self, conversation: Conversation, reply: Reply) -> None:
        self.messages.append((conversation, reply))

    @property
    def replies(self) -> list[Reply]:
        return [reply for _, reply in self.messages]

    @property
    def texts(self) -> list[str]:
        return [reply.text for _, reply in self.messages]


def make_settings(
    tmp_path: Path, database_url: str, openai: FakeOpenAI | None = None, **overrides: Any
) -> Settings:
    values: dict[str, Any] = {
        "BRAINBOT_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": database_url,
        "BRAINBOT_EMBEDDINGS": "none",
        "BRAINBOT_LLM_RETRIES": 0,
        "BRAINBOT_LLM_TIMEOUT": 5,
        # A closed install refuses everyone; the test platforms' people are let in.
        "BRAINBOT_ALLOWED_USERS": "test:*,bench:*,slack:*,telegram:*",
    }
    if openai is not None:
        values["OPENAI_BASE_URL"] = openai.base_url
        values["OPENAI_API_KEY"] = "test-key"
    values.update(overrides)
    return settings_class()(_env_file=None, **values)  # brainbot's and each platform's


@asynccontextmanager
async def running_brain(
    tmp_path: Path,
    database_url: str,
    openai: FakeOpenAI | None = None,
    clock: Clock | None = None,
    deliver: Deliver | None = None,
    chats: Mapping[str, ChatMembers] | None = None,
    **overrides: Any,
) -> AsyncIterator[Runtime]:
    """A runtime on `settings` with `overrides`; what its engine says after a reply
    goes to `deliver` (None: nobody is told), and `chats` say who is in a team chat."""
    settings = make_settings(tmp_path, database_url, openai, **overrides)
    runtime = await Runtime.open(settings, clock=clock or Clock(), deliver=deliver, chats=chats)
    try:
        yield runtime
    finally:
        await runtime.close()


@asynccontextmanager
async def instant_model_brain(prefix: str, **overrides: Any) -> AsyncIterator[Runtime]:
    """A runtime on a temporary vault and embedded Postgres whose fake model files
    every message at once with one `capture` call: the engine's own time, for benchmarks."""
    from tests.fakes.scripts import capture_everything

    openai = FakeOpenAI()
    openai.responder = capture_everything
    await openai.start()
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            embedded: Any = None  # no DATABASE_URL: the runtime starts its own Postgres
            async with running_brain(Path(tmp), embedded, openai, **overrides) as brain:
                yield brain
    finally:
        await openai.stop()
