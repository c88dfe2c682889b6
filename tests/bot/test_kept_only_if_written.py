"""A reply calls a message saved or kept only when the vault holds it: each dependency
(the vault, the database, the model) is broken in turn, and the reply is checked
against what is in the vault and the events table."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.recovery import resume_unfinished
from bot.events import Conversation, Reply
from tests.bot.helpers import message, notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, call, say

CLAIMS = ("kept", "saved to", "filed")


def claims_kept(replies: list[Reply]) -> bool:
    text = " ".join(r.text for r in replies).lower()
    return any(word in text for word in CLAIMS) and "not saved" not in text


def capture(category: str) -> Step:
    return call(
        "capture",
        category=category,
        title="Water the plants",
        body="water the plants on friday",
        confidence=0.9,
        tags=[],
        fields=[],
    )


def break_folder(vault: Path, folder: str) -> None:
    """The category folder becomes a file: no note can be written there."""
    shutil.rmtree(vault / folder)
    (vault / folder).write_text("not a folder\n")


class Database:
    """The test's database, which `gone()` closes to every connection, as a server that
    went away, and `back()` opens again (as after the test, for its teardown)."""

    def __init__(self, pg_server: str, database_url: str) -> None:
        self.server = pg_server
        self.name = make_url(database_url).database

    def gone(self) -> None:
        with psycopg.connect(self.server, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false')
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (self.name,),
            )

    def back(self) -> None:
        with psycopg.connect(self.server, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')


@pytest.fixture
def database(pg_server: str, database_url: str) -> Iterator[Database]:
    db = Database(pg_server, database_url)
    yield db
    db.back()


async def test_a_vault_folder_that_cannot_be_written_is_not_called_kept(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [capture("admin"), capture("admin")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        break_folder(vault, "admin")
        replies = await brain.engine.handle(message("water the plants on friday"))
        written = notes(vault)
    assert not claims_kept(replies) or written, replies
    assert claims_kept(replies) == bool(written), (replies, written)


async def test_the_model_down_and_the_inbox_unwritable_says_not_saved(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.down = True
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        break_folder(vault, "inbox")
        replies = await brain.engine.handle(message("water the plants on friday"))
        assert notes(vault) == []
    assert not claims_kept(replies), replies
    assert "send it again" in replies[0].text.lower()


async def test_the_model_down_keeps_the_words_and_says_so(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.down = True
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        replies = await brain.engine.handle(message("water the plants on friday"))
        assert len(notes(vault)) == 1
    assert claims_kept(replies), replies


async def test_the_model_down_answers_a_greeting_and_files_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """As when the model answers it (and without a model): small talk is not filed."""
    openai_fake.down = True
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(message("thanks!"))
        assert notes(brain.settings.vault_dir) == []
    assert reply.text == "Hello! Tell me a thought to keep, or ask me about your notes."


async def test_the_database_going_away_mid_turn_keeps_the_event_for_the_next_start(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, database: Database
) -> None:
    breaks = [True]

    def model(body: dict[str, Any]) -> Step:
        if breaks.pop() if breaks else False:
            database.gone()  # after the event was recorded, before the capture runs
        return capture("admin")

    openai_fake.responder = model
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message("water the plants on friday"))
        vault = brain.settings.vault_dir
        assert notes(vault) == []
    assert replies, "a reply, not an exception"
    assert "recorded and will be filed when I start again" in replies[0].text
    database.back()
    delivered: list[Reply] = []

    async def deliver(conversation: Conversation, reply: Reply) -> None:
        delivered.append(reply)

    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 1
        assert notes(vault) == ["admin/water-the-plants.md"]
    assert claims_kept(delivered)


async def test_the_database_going_away_after_the_write_says_kept(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, database: Database
) -> None:
    def model(body: dict[str, Any]) -> Step:
        if not any(m.get("role") == "tool" for m in body["messages"]):
            return capture("admin")
        database.gone()  # the note is committed; the turn's bookkeeping is not
        return say("Filed it.")

    openai_fake.responder = model
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        replies = await brain.engine.handle(message("water the plants on friday"))
        assert notes(vault) == ["admin/water-the-plants.md"]
    assert claims_kept(replies), replies
