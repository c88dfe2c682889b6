"""`/search` in a chat is the person's words and the search syntax only, as on the
command line: a weekday in it is a word to find, not a day to filter on (issue 40).
Questions still read their time words (tests/bot/test_engine_time_questions.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.cli import main
from tests.adapters.telegram.conftest import make_adapter
from tests.fakes.brain import Clock, running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

NOTE = "admin/renew-the-car-insurance.md"


async def test_a_weekday_in_search_is_a_word_in_chat_as_on_the_command_line(
    tmp_path: Path,
    database_url: str,
    fake: FakeTelegram,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A Monday: "Friday" read as a day would be one on which nothing was filed.
    clock = Clock(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    updates = Updates()
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        adapter = make_adapter(fake)
        await adapter.start(brain.engine.handle)
        try:

            async def say(text: str) -> str:
                before = len(fake.calls("sendMessage"))
                fake.queue_update(updates.message(text))
                sent = await fake.wait_for("sendMessage", before + 1, within=15)
                return visible_text(sent[before]["text"])

            assert NOTE in await say("/capture Renew the car insurance by Friday")
            for query in ("Friday", '"Friday"', "insurance Friday"):
                found = await say(f"/search {query}")
                assert NOTE in found, (query, found)
                assert "filed" not in found
            # The syntax's own dates still filter: nothing was changed after 2027.
            later = await say("/search Friday after:2027-01-01")
            assert NOTE not in later
        finally:
            await adapter.stop()

    monkeypatch.setenv("BRAINBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)  # no stray .env
    assert await asyncio.to_thread(main, ["search", "Friday"]) == 0
    assert NOTE in capsys.readouterr().out
