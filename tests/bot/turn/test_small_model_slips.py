"""What Gemma 3 270M was seen to answer in small-model mode (`make e2e-model ARGS="--tools
routed"`), scripted over the fake server, and what the person gets instead: the note
the message names is moved, a suggestion sets no reminder, a task with a deadline is
filed rather than searched for, a note about Sarah's birthday is no person called
"Sarah's Birthday"; and with the model unreachable, a question is answered by the
keyword search, without waiting for the model on every message."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from bot.events import Reply
from storage.entry import Author
from tests.bot.helpers import message, notes, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, call, say

ADA = Author("Ada", "ada@example.org")
BUDGET = "Had a call with Sarah about the Q3 budget, she wants the draft by Friday"


def _texts(replies: list[Reply] | tuple[Reply, ...]) -> str:
    return " ".join(f"{r.text} {r.notice or ''}" for r in replies)


def _small_model(answers: dict[str, dict[str, Any]]) -> Any:
    """A model that answers each of the routed prompts (told by its first word) with
    the JSON given for it."""

    def respond(body: dict[str, Any]) -> Step:
        prompt = body["messages"][0]["content"]
        for opening, answer in answers.items():
            if prompt.startswith(opening):
                return say(json.dumps(answer))
        return say("{}")

    return respond


async def test_a_move_whose_note_is_the_verb_moves_the_note_the_message_names(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # Seen: {"note": "move"}, answered "I could not do that: no entry at 'move'".
    openai_fake.script = [
        say('{"action": "move", "note": "move", "category": "projects", "text": null}')
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        await brain.store.create("ideas", "Plant bot", "a bot that waters plants", author=ADA)
        replies = await brain.engine.handle(message("move the plant bot note to projects"))
        for reply in replies:
            if any(b.label == "Approve" for b in reply.buttons):
                replies += await brain.engine.handle(press(reply, "Approve"))
        assert notes(brain.settings.vault_dir) == ["projects/plant-bot.md"]
    assert "no entry" not in _texts(replies)


async def test_a_suggestion_with_a_weekday_sets_no_reminder(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # Seen: "on Fridays" read as a weekly reminder nobody asked for.
    openai_fake.responder = _small_model(
        {
            "Classify": {"route": "save"},
            "File": {"category": "ideas", "title": "Pair programming", "confidence": 0.9},
        }
    )
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        (reply,) = await brain.engine.handle(
            message("Tom suggested we try pair programming on Fridays")
        )
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        fields = frontmatter.load(vault / path).metadata
    assert not {"remind", "repeat"} & set(fields)
    assert "remind" not in reply.text


async def test_a_reminder_the_model_set_for_words_that_ask_for_none_is_dropped(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title="Pair programming",
            body="Tom suggested we try pair programming on Fridays",
            confidence=0.9,
            tags=[],
            fields=[
                {"name": "repeat", "value": "every friday"},
                {"name": "remind", "value": "2026-11-27 09:00"},
            ],
        ),
        call(
            "capture",
            category="admin",
            title="Electricity bill",
            body="Pay the electricity bill by the 30th",
            confidence=0.9,
            tags=[],
            fields=[{"name": "remind", "value": "2026-11-29 18:00"}],
        ),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("Tom suggested we try pair programming on Fridays"))
        (deadline,) = await brain.engine.handle(message("Pay the electricity bill by the 30th"))
        vault = brain.settings.vault_dir
        idea = frontmatter.load(vault / "ideas/pair-programming.md").metadata
        bill = frontmatter.load(vault / "admin/electricity-bill.md").metadata
    assert not {"remind", "repeat"} & set(idea)
    # A deadline is a reason to be reminded: the model's reminder for it stays.
    assert str(bill["remind"]).startswith("2026-11-29 18:00") and "I'll remind you" in deadline.text


async def test_a_task_with_a_deadline_is_filed_not_answered_with_search_results(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # Seen: routed to "ask", answered with the Sarah budget note, then kept.
    openai_fake.responder = _small_model(
        {
            "Classify": {"route": "ask"},
            "The user asks": {"query": "Sarah budget"},
            "File": {"category": "admin", "title": "Electricity bill", "confidence": 0.9},
        }
    )
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        await brain.store.create("inbox", "Sarah budget", BUDGET, author=ADA)
        replies = await brain.engine.handle(message("Pay the electricity bill by the 30th"))
        vault = brain.settings.vault_dir
        assert notes(vault) == ["admin/electricity-bill.md", "inbox/sarah-budget.md"]
        fields = frontmatter.load(vault / "admin/electricity-bill.md").metadata
    assert str(fields["due"]) == "2026-11-30"
    assert "sarah" not in _texts(replies).lower()
    assert "admin/electricity-bill.md" in _texts(replies)


@pytest.mark.parametrize("page", [True, False])
async def test_a_note_about_sarahs_birthday_is_no_person_called_so(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, page: bool
) -> None:
    # Seen: people/Sarah's Birthday.md, a new person beside Sarah's own page.
    openai_fake.responder = _small_model(
        {
            "Classify": {"route": "save"},
            "File": {"category": "people", "title": "Sarah's Birthday", "confidence": 0.9},
        }
    )
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        if page:
            await brain.store.create("people", "Sarah Kim", "Works on heat pumps.", author=ADA)
        await brain.engine.handle(message("Sarah's birthday is on June 3"))
        vault = brain.settings.vault_dir
        written = notes(vault)
        (path,) = [p for p in written if not p.startswith("people/")]
        post = frontmatter.load(vault / path)
    assert [p for p in written if p.startswith("people/")] == (
        ["people/Sarah Kim.md"] if page else []
    )
    assert path.startswith("admin/")  # a date: an errand, as without a model
    assert post["repeat"] == "yearly"
    assert post.content.startswith("Sarah's birthday is on June 3")
    assert ("[[Sarah Kim]]" in post.content) is page


async def test_a_birthday_of_someone_with_an_apostrophe_in_the_name_is_no_person(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # "O'Brien's": the apostrophe in the name hid the possessive from the mending.
    openai_fake.responder = _small_model(
        {
            "Classify": {"route": "save"},
            "File": {"category": "people", "title": "O'Brien's Birthday", "confidence": 0.9},
        }
    )
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        await brain.engine.handle(message("O'Brien's birthday is on June 3"))
        written = notes(brain.settings.vault_dir)
    assert len(written) == 1 and written[0].startswith("admin/"), written


def _closed_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return int(free.getsockname()[1])


async def test_with_the_model_unreachable_a_question_is_answered_by_keyword_search_at_once(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.llm")
    async with running_brain(
        tmp_path,
        database_url,
        OPENAI_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1",
        OPENAI_API_KEY="test-key",
        BRAINBOT_LLM_RETRIES=1,
    ) as brain:
        await brain.store.create("ideas", "Tea", "Try oolong next.", author=ADA)
        first = await brain.engine.handle(message("what did I write about oolong?"))
        second = await brain.engine.handle(message("Which notes mention oolong?"))
        kept = await brain.engine.handle(message("Buy more oolong"))
        written = notes(brain.settings.vault_dir)
    for replies in (first, second):
        assert "ideas/tea.md" in _texts(replies)
        assert "unreachable" in (replies[0].notice or "")
    assert "unreachable" in (kept[0].notice or "")
    assert written == ["ideas/tea.md", "inbox/buy-more-oolong.md"]  # questions not filed
    # The retries are waited through once at most (the probe of the endpoint has none);
    # the next messages do not wait for the model.
    assert sum("retrying" in r.getMessage() for r in caplog.records) <= 1
