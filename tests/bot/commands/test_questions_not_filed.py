"""A question is never filed as a thought: the ways people ask without a "?" (in
English, German and French) are answered from the notes, with or without a model,
and what only looks like one ("notes from the offsite: ...") is still kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.commands.intent import is_question, kind_of, only_asks
from storage.entry import Author
from tests.bot.helpers import message, notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call, say

ASKED = [
    "tell me about the budget",
    "anything on Sarah",
    "is there anything about tea",
    "give me my notes on tea",
    "my notes on the garden",
    "remind me what Sarah said about the budget",
    "Was hab ich zum Budget notiert",
    "Wo ist der Reisepass",
    "gibt es Notizen zum Garten",
    "quand est la réunion",
    "qu'est-ce que j'ai noté sur le budget",
    "où est le passeport",
    "quel est le budget",
]
THOUGHTS = [
    "notes from the offsite: we agreed to ship in March",
    "Was at the market, tomatoes are cheap",
    "comment on the draft: too long",
    "remind me to call mom tomorrow",
    "give me a call tomorrow, Sarah said",
    "any ideas for the garden should go on the wall",
]


@pytest.mark.parametrize("text", ASKED)
def test_ways_of_asking_are_questions(text: str) -> None:
    assert is_question(text) and kind_of(text) == "question"


@pytest.mark.parametrize("text", THOUGHTS)
def test_what_only_looks_like_asking_is_a_thought(text: str) -> None:
    assert not is_question(text) and kind_of(text) == "thought"


# What a model changes answering these waits for Approve: they ask, and nothing more.
ONLY_ASKING = [
    "what's new about the budget?",
    "what's new about the budget",
    "What should I know about the budget?",
    "Was gibt es Neues zum Budget?",
    "quoi de neuf pour le budget ?",
    "did I pay the invoice?",
    "did I add the invoice to the budget note?",  # "add", but asked about
    "Sarah, what did she say?",
    "thanks, and the budget: anything new?",
]
# These ask for a change too (or ask nothing): the usual rules decide.
ASKING_FOR_MORE = [
    "got the milk, what's left?",
    "can you add eggs to my shopping list?",
    "could you please tag the tea note #garden?",
    "did the laundry",
    "add eggs to my shopping list",
    "I tried oolong",
    "mark milk and eggs as done",
    "Milk is done. What else is on the list?",
]


@pytest.mark.parametrize("text", ONLY_ASKING)
def test_a_message_that_only_asks(text: str) -> None:
    assert only_asks(text)


@pytest.mark.parametrize("text", ASKING_FOR_MORE)
def test_a_message_that_asks_for_a_change_or_tells(text: str) -> None:
    assert not only_asks(text)


def test_a_contracted_question_word_opens_a_question() -> None:
    assert is_question("what's in the budget note") and is_question("where\u2019s my passport")


async def test_without_a_model_questions_are_answered_and_nothing_is_filed(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.store.create(
            "projects", "Budget", "Cut travel by a third.", {}, author=Author("A", "a@b.c")
        )
        (told,) = await brain.engine.handle(message("tell me about the budget"))
        (french,) = await brain.engine.handle(message("quand est la réunion"))
        assert notes(vault) == ["projects/budget.md"]
    assert told.text.startswith('Notes about "budget":\n- Budget (projects/budget.md)')
    assert [b.label for b in told.buttons] == ["Budget"]
    assert french.text.startswith('Nothing in your notes about "quand est la réunion".')


async def test_with_a_model_an_answered_question_is_not_kept_as_a_thought(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [call("search_entries", query="budget"), say("Cut travel by a third.")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        await brain.store.create(
            "projects", "Budget", "Cut travel by a third.", {}, author=Author("A", "a@b.c")
        )
        replies = await brain.engine.handle(message("tell me about the budget"))
        assert notes(vault) == ["projects/budget.md"]  # no inbox note of the question
    assert [r.text.split("\n")[0] for r in replies] == ["Cut travel by a third."]
    assert [b.label for b in replies[0].buttons] == ["Budget"]


async def test_without_a_model_small_talk_is_answered_and_nothing_is_filed(
    tmp_path: Path, database_url: str
) -> None:
    """A newcomer's first "hi" (no model is the default) is not a note in the inbox."""
    async with running_brain(tmp_path, database_url) as brain:
        replies = [await brain.engine.handle(message(t)) for t in ("hi", "thanks!", "ok")]
        assert notes(brain.settings.vault_dir) == []
    for (reply,) in replies:
        assert reply.text == (
            "Hello! Tell me a thought to keep, or ask me about your notes. (I did not save "
            "that. To keep it as a note: /capture TEXT; /help lists the rest)"
        )
        assert not reply.buttons


@pytest.mark.parametrize("text", ["list my notes", "summarize my notes on the budget"])
async def test_without_a_model_asking_to_be_shown_is_answered_not_filed(
    tmp_path: Path, database_url: str, text: str
) -> None:
    """The kind the engine decided (a request to be shown is a question) is the one
    the router answers by: one decision, not a narrower second one."""
    async with running_brain(tmp_path, database_url) as brain:
        await brain.store.create(
            "projects", "Budget", "Cut travel by a third.", {}, author=Author("A", "a@b.c")
        )
        (reply,) = await brain.engine.handle(message(text))
        assert notes(brain.settings.vault_dir) == ["projects/budget.md"]
    assert "I did not save your question" in reply.text
