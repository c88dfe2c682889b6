"""Answers cite the notes they come from. With the (scripted) model: the sources are
the notes the turn read that the answer cites, never a name it made up, each with a
button that opens the note. Without a model: the search's hits, with the same
buttons. `/search` says per hit whether its words, its meaning or both found it."""

from __future__ import annotations

from pathlib import Path

from bot.events import Conversation
from storage.entry import Author
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, ToolCall, call, calls, say

AUTHOR = Author("Ada", "ada@example.org")
BUDGET = "projects/budget-q3.md"
TRIP = "projects/lisbon-trip.md"
TOMATOES = "ideas/tomatoes.md"
BUDGET_TEXT = "The budget call with Sarah: cut travel costs by a third."


async def _notes(brain: object) -> None:
    store = brain.store  # type: ignore[attr-defined]
    await store.create("projects", "Budget Q3", BUDGET_TEXT, {}, author=AUTHOR)
    await store.create(
        "projects",
        "Lisbon trip",
        "Flights booked; the budget allows two nights.",
        {},
        author=AUTHOR,
    )
    await store.create(
        "ideas", "Tomatoes", "Tomatoes want a sunny garden wall and daily water.", {}, author=AUTHOR
    )


async def test_the_sources_are_the_read_notes_the_answer_cites_and_each_opens(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("search_entries", query="budget"),
        calls(ToolCall("get_entry", {"path": BUDGET}), ToolCall("get_entry", {"path": TRIP})),
        say("You agreed to cut travel costs by a third [[Budget Q3]] (see [[Nope]])."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _notes(brain)
        vault = brain.settings.vault_dir
        history = git_log(vault)
        (reply,) = await brain.engine.handle(message("what did I decide about the budget?"))

        # The invented note is gone from the words; the real one is the only source.
        assert reply.text.startswith(
            "You agreed to cut travel costs by a third [[Budget Q3]].\n\nSources:\n"
        )
        assert "Nope" not in reply.text
        assert "Lisbon trip (" not in reply.text  # read, but not what the answer cites
        sources = reply.text.split("Sources:\n", 1)[1]
        assert sources == (
            f"- Budget Q3 ({BUDGET}) · words\n"
            "    The **budget** call with Sarah: cut travel costs by a third."
        )
        assert [(b.label, b.action) for b in reply.buttons] == [("Budget Q3", "source")]
        assert len(f"{reply.buttons[0].action}:{reply.buttons[0].value}".encode()) <= 64

        (opened,) = await brain.engine.handle(press(reply, "Budget Q3"))
        assert opened.text == (
            f"Budget Q3 ({BUDGET}) · found by words\n"
            "Matched: The **budget** call with Sarah: cut travel costs by a third.\n\n"
            f"{BUDGET_TEXT}"
        )
        (again,) = await brain.engine.handle(press(reply, "Budget Q3"))
        assert again.text == opened.text  # opening changes nothing: it works every time

        # Someone else's press shows nothing of the note.
        (theirs,) = await brain.engine.handle(press(reply, "Budget Q3", user="U2"))
        assert theirs.text == "Only the person who asked can open this source."
        assert BUDGET_TEXT not in theirs.text

        # Deleted since: it says so, and nothing changes.
        await brain.store.delete(BUDGET, author=AUTHOR)
        after_delete = git_log(vault)
        (gone,) = await brain.engine.handle(press(reply, "Budget Q3"))
        assert gone.text == (
            f"Budget Q3 ({BUDGET}) is no longer in your notes: it was deleted or moved."
        )
        assert git_log(vault) == after_delete
        assert after_delete[1:] == history
    # The model was told to cite notes as [[Title]].
    system = openai_fake.chat_requests()[0]["messages"][0]["content"]
    assert "[[its title]]" in system


async def test_an_answer_that_cites_nothing_lists_the_searchs_best_hits(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("search_entries", query="budget"),
        say("You cut travel costs; the trip has two nights. See ideas/nothing-here.md"),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _notes(brain)
        (reply,) = await brain.engine.handle(message("what about the budget?"))
    assert "Sources:\n- Budget Q3 (projects/budget-q3.md) · words" in reply.text
    assert "- Lisbon trip (projects/lisbon-trip.md) · words" in reply.text
    assert "Tomatoes" not in reply.text  # not found by the search: never a source
    assert sorted(b.label for b in reply.buttons) == ["Budget Q3", "Lisbon trip"]


async def test_without_a_model_a_question_lists_its_hits_with_open_buttons(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _notes(brain)
        vault = brain.settings.vault_dir
        (reply,) = await brain.engine.handle(message("what did I write about tomatoes?"))
        assert reply.text.startswith(
            'Notes about "tomatoes":\n'
            f"- Tomatoes ({TOMATOES}) · words\n"
            "    **Tomatoes** want a sunny garden wall and daily water."
        )
        assert [(b.label, b.action) for b in reply.buttons] == [("Tomatoes", "source")]
        (opened,) = await brain.engine.handle(press(reply, "Tomatoes"))
        assert opened.text.startswith(f"Tomatoes ({TOMATOES}) · found by words\nMatched: ")
        assert opened.text.endswith("\n\nTomatoes want a sunny garden wall and daily water.")

        # Nothing holds the words: it says so plainly, and offers the closest notes.
        (none,) = await brain.engine.handle(message("where are my gardening plans?"))
        assert none.text.startswith(
            'Nothing in your notes about "gardening plans". The closest notes:\n'
            f"- Tomatoes ({TOMATOES}) · words\n"
        )
        assert [b.label for b in none.buttons] == ["Tomatoes"]
        (nothing,) = await brain.engine.handle(message("what did I note about zeppelins?"))
        assert nothing.text.startswith('Nothing in your notes about "zeppelins".')
        assert not nothing.buttons
        # No question was filed as a thought.
        written = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
        assert written == sorted([BUDGET, TOMATOES, TRIP])


async def test_search_says_which_side_found_each_hit(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    async with running_brain(
        tmp_path,
        database_url,
        openai_fake,
        BRAINBOT_EMBEDDINGS="openai",
        BRAINBOT_EMBEDDING_MODEL="fake-embedder",  # its size is probed: 32
    ) as brain:
        await _notes(brain)
        (costs,) = await brain.engine.handle(message("/search costs"))
        (plants,) = await brain.engine.handle(message("/search plants water"))
    # The fake embeddings hash words into 32 slots: "costs" is in the budget note and
    # shares its slot with it; "plants water" finds the tomatoes by the word "water",
    # and the two others only by their vectors.
    assert f"- Budget Q3 ({BUDGET}) · words + meaning\n    The budget call" in costs.text
    assert "travel **costs** by a third" in costs.text
    assert f"- Tomatoes ({TOMATOES}) · words\n" in plants.text
    assert "daily **water**." in plants.text
    assert f"- Budget Q3 ({BUDGET}) · meaning\n    The budget call with Sarah" in plants.text


async def test_when_the_models_search_finds_nothing_the_closest_notes_follow(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("search_entries", query="gardening plans"),
        say("I found nothing about gardening plans in your notes."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _notes(brain)
        answer, closest = await brain.engine.handle(message("what are my gardening plans?"))
        assert answer.text == "I found nothing about gardening plans in your notes."
        assert closest.text.startswith(
            'Nothing in your notes about "gardening plans". The closest notes:\n'
            f"- Tomatoes ({TOMATOES}) · words\n"
        )
        (opened,) = await brain.engine.handle(press(closest, "Tomatoes"))
    assert opened.text.endswith("Tomatoes want a sunny garden wall and daily water.")


async def test_a_team_note_among_the_sources_opens_for_its_member_only(
    tmp_path: Path, database_url: str
) -> None:
    team_chat = Conversation("test", "team-chat")
    rota = "projects/on-call-rota.md"
    teams = {"BRAINBOT_TEAM_VAULTS": "test:team-chat=Team Ops"}
    async with running_brain(tmp_path, database_url, **teams) as brain:
        await brain.engine.handle(message("project: On-call rota", user="U1", chat=team_chat))
        await brain.engine.handle(message("/help", user="U2", chat=team_chat))
        (reply,) = await brain.engine.handle(message("what about the rota?", user="U2"))
        assert f"- [team-ops] On-call rota (team-ops:{rota}) · words" in reply.text
        (opened,) = await brain.engine.handle(press(reply, "On-call rota", user="U2"))
        assert opened.text.startswith(f"On-call rota (team-ops:{rota}) · found by words\n")
        (refused,) = await brain.engine.handle(press(reply, "On-call rota", user="U3"))
        assert refused.text == "Only the person who asked can open this source."
