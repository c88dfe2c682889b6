"""Stopping and crashing: SIGTERM lets the message being handled finish, and a
kill -9 followed by a restart loses no recorded event and handles none twice."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.bot.helpers import git_log, notes
from tests.fakes.openai_server import FakeOpenAI, Step
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_payloads import dm_event
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes, file_as_idea
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes


async def model_called(openai: FakeOpenAI, count: int = 1, within: float = 20.0) -> None:
    """Wait until the fake model has received `count` chat requests."""
    deadline = time.monotonic() + within
    while len(openai.chat_requests()) < count:
        assert time.monotonic() < deadline, "the model was never asked"
        await asyncio.sleep(0.02)


def slow_model(seconds: float) -> Any:
    """A model whose first answer takes `seconds`; the rest come at once."""
    slow = [True]

    def respond(body: dict[str, Any]) -> Step:
        delay, slow[0] = (seconds if slow[0] else 0.0), False
        return file_as_idea(body, delay=delay)

    return respond


def replies_to(slack: FakeSlack, text: str) -> list[str]:
    return [c.args["text"] for c in slack.ok_calls("chat.postMessage") if text in c.args["text"]]


async def test_sigterm_finishes_the_message_in_progress_and_exits_0(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    fakes.openai.responder = slow_model(2.0)
    bot = await Brainbot(tmp_path, fakes.env(tmp_path, database_url, slack="socket")).start()
    try:
        await bot.wait_ready()
        await fakes.slack.push("events_api", dm_event("Ask Sam about the garden budget"))
        await model_called(fakes.openai)

        bot.signal(signal.SIGTERM)
        status, body = await bot.get_json("/readyz")
        while status == 200:  # the signal may be handled a moment after the request
            status, body = await bot.get_json("/readyz")
        assert (status, body["problems"]) == (503, {"process": "stopping"})
        await fakes.slack.wait_until(
            lambda: bool(replies_to(fakes.slack, "ask-sam-about-the-garden-budget")), within=20
        )
    finally:
        code = await bot.wait()
    assert code == 0, bot.log()
    assert "ideas/ask-sam-about-the-garden-budget.md" in notes(tmp_path / "data" / "vault")
    assert '"brainbot stopped"' in bot.log()


def embedded_postgres(data_dir: Path) -> list[psutil.Process]:
    """Postgres servers running on the embedded data folder."""
    found = []
    for process in psutil.process_iter(["name", "cmdline", "status"]):
        info = process.info
        command = " ".join(info["cmdline"] or ())
        if info["name"] == "postgres" and info["status"] != "zombie" and str(data_dir) in command:
            found.append(process)
    return found


@pytest.mark.slow(seconds=8)
async def test_kill_9_then_restart_with_the_embedded_database(tmp_path: Path, fakes: Fakes) -> None:
    fakes.openai.responder = slow_model(2.0)  # longer than the kill takes
    env = fakes.env(tmp_path, None, slack=None)
    first = await Brainbot(tmp_path, env, name="first").start()
    await first.wait_ready()
    fakes.telegram.queue_update(Updates().message("Plant tomatoes in May"))
    await model_called(fakes.openai)  # recorded, and in the middle of its model call
    first.signal(signal.SIGKILL)
    assert await first.wait() == -signal.SIGKILL
    assert fakes.telegram.calls("sendMessage") == []

    second = await Brainbot(tmp_path, env, name="second").start()
    try:
        await second.wait_ready()
        # Telegram considers the update delivered (the poll after it confirmed it):
        # only the record in the database brings it back.
        sent = await fakes.telegram.wait_for("sendMessage", within=20)
        await second.wait_for_log("re-processed 1 event")
    finally:
        code = await second.stop()
    assert code == 0, second.log()

    assert len(fakes.telegram.calls("sendMessage")) == 1
    assert "ideas/plant-tomatoes-in-may.md" in sent[0]["text"]
    vault = tmp_path / "data" / "vault"
    assert [n for n in notes(vault) if "tomatoes" in n] == ["ideas/plant-tomatoes-in-may.md"]
    assert len([s for s in git_log(vault) if "tomatoes" in s]) == 1
    assert embedded_postgres(tmp_path / "data") == []  # the clean stop stopped the server


async def test_kill_9_between_the_commit_and_the_tool_log_files_the_note_once(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_EMBEDDINGS="openai")
    first = await Brainbot(tmp_path, env, name="first").start()
    await first.wait_ready()
    fakes.openai.embedding_delay = 30.0  # the note is committed, then waits for its vectors
    fakes.telegram.queue_update(Updates().message("Plant tomatoes in May"))
    deadline = time.monotonic() + 20
    while not any(
        "tomatoes" in str(body.get("input"))
        for path, body in fakes.openai.requests
        if path == "embeddings"
    ):
        assert time.monotonic() < deadline, first.log()
        await asyncio.sleep(0.05)
    first.signal(signal.SIGKILL)
    assert await first.wait() == -signal.SIGKILL
    vault = tmp_path / "data" / "vault"
    assert [n for n in notes(vault) if "tomatoes" in n] == ["ideas/plant-tomatoes-in-may.md"]

    fakes.openai.embedding_delay = 0.0
    second = await Brainbot(tmp_path, env, name="second").start()
    try:
        await second.wait_ready()
        await second.wait_for_log("finished its work before the restart")
    finally:
        assert await second.stop() == 0, second.log()

    assert [n for n in notes(vault) if "tomatoes" in n] == ["ideas/plant-tomatoes-in-may.md"]
    assert len([s for s in git_log(vault) if "tomatoes" in s]) == 1
