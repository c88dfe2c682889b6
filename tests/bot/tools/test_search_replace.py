"""`search_replace` waits for Approve with every hit shown in its line; zero hits, an
occurrence past the last, or a note changed after the card change nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import frontmatter

from app.runtime import Runtime
from bot.events import Reply
from storage.entry import Author
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, call, say

TRIP = "projects/trip.md"
BODY = (
    "Fly to Lisbon with Sam on Friday.\n"
    "Sam books the hotel; ask Sam about the museum pass.\n"
    "```\nsam = 'lowercase in code'\n```\n"
)
ADA = Author("Ada", "ada@example.org")


def replace(**arguments: Any) -> Step:
    return call("search_replace", **{"path": TRIP, "occurrence": None, **arguments})


async def _with_trip(brain: Runtime) -> Path:
    await brain.store.create("projects", "Trip", BODY, {"status": "active"}, author=ADA)
    return brain.settings.vault_dir


def _card(replies: list[Reply] | Any) -> Reply:
    (card,) = [r for r in replies if r.buttons]
    assert [b.label for b in card.buttons] == ["Approve", "Reject"]
    return card


async def test_every_hit_is_shown_in_its_line_and_approve_replaces_them_all(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [replace(find="Sam", replace="Samira", occurrence="all")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_trip(brain)
        before = (vault / TRIP).read_text()
        card = _card(await brain.engine.handle(message("replace Sam with Samira in my trip")))
        assert card.text.startswith(f'Replace "Sam" with "Samira" in {TRIP} (all 3 hits)?')
        assert card.preview == (
            "line 1:\n"
            "- Fly to Lisbon with Sam on Friday.\n"
            "+ Fly to Lisbon with Samira on Friday.\n"
            "line 2:\n"
            "- Sam books the hotel; ask Sam about the muse…\n"
            "+ Samira books the hotel; ask Sam about the muse…\n"
            "line 2:\n"
            "- Sam books the hotel; ask Sam about the museum pass.\n"
            "+ Sam books the hotel; ask Samira about the museum pass."
        )
        assert (vault / TRIP).read_text() == before
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved")
        post = frontmatter.load(vault / TRIP)
        assert post.content == BODY.replace("Sam ", "Samira ").rstrip("\n")
        assert "sam = 'lowercase in code'" in post.content  # case as written
        assert post["status"] == "active"  # fields are not touched
        assert git_log(vault)[0] == f"replace {TRIP}"


async def test_the_nth_occurrence_is_the_only_one_changed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [replace(find="Sam", replace="Jo", occurrence="3")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_trip(brain)
        card = _card(await brain.engine.handle(message("the third Sam in my trip is Jo")))
        assert "(hit 3 of 3)" in card.text and card.preview is not None
        assert card.preview.count("line ") == 1 and "+ Sam books the hotel; ask Jo" in card.preview
        await brain.engine.handle(press(card, "Approve"))
        assert frontmatter.load(vault / TRIP).content.startswith(
            "Fly to Lisbon with Sam on Friday.\nSam books the hotel; ask Jo about"
        )


async def test_no_hit_or_too_few_hits_say_so_and_change_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        replace(find="Porto", replace="Faro"),
        replace(find="lisbon", replace="Faro"),
        replace(find="Friday", replace="Monday", occurrence="2"),
        replace(find="Sam", replace="Jo", occurrence="twice"),
        say("Nothing matched."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_trip(brain)
        before = (vault / TRIP).read_text()
        log = git_log(vault)
        replies = await brain.engine.handle(message("replace Porto with Faro in my trip note"))
        assert [r.text for r in replies] == ["Nothing matched."]
        messages = openai_fake.chat_requests()[-1]["messages"]
        errors = [json.loads(m["content"])["error"] for m in messages if m.get("role") == "tool"]
        assert errors == [
            f'"Porto" does not occur in {TRIP}; nothing changed',
            f"\"lisbon\" does not occur in {TRIP} (it does as 'Lisbon': case matters); "
            "nothing changed",
            f'"Friday" occurs 1 time in {TRIP}, not 2; nothing changed',
            'occurrence must be "first", "all" or a number from 1, not \'twice\'',
        ]
        assert (vault / TRIP).read_text() == before and git_log(vault) == log
        assert not any(r.buttons for r in replies)  # no card waits for a press


async def test_an_approval_after_the_note_changed_changes_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [replace(find="Friday", replace="Saturday")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_trip(brain)
        card = _card(await brain.engine.handle(message("replace Friday with Saturday in my trip")))
        await brain.store.update(TRIP, body=BODY + "Friday is a holiday.\n", author=ADA)
        edited = (vault / TRIP).read_text()
        log = git_log(vault)
        (stale,) = await brain.engine.handle(press(card, "Approve"))
        assert "changed after the preview" in stale.text
        assert (vault / TRIP).read_text() == edited and git_log(vault) == log
