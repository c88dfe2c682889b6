"""Time in a question, through the engine: without a model, "what did I capture
yesterday?" (in English, German and French) lists the notes filed that day in the
person's zone, and "the budget last week" finds last week's budget note, not an older
one; with a model, the person's "yesterday" wins over the date the model passed.

The notes are files with fixed `created` dates, indexed by a sync (as notes written
in Obsidian are), and the clock is set after them. The zone is Los Angeles, where
late evening is already the next day in UTC: a note filed at 22:00 local on the 23rd
is the 24th in UTC, and still "yesterday" on the 24th local."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from tests.bot.helpers import message
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, call, say

ZONE = "America/Los_Angeles"
# Tuesday 24 November 2026, 10:00 in Los Angeles.
NOW = datetime(2026, 11, 24, 18, 0, tzinfo=UTC)
NOTES = {
    # path: (created, local wall time, title, body)
    "ideas/offsite-budget.md": ("2026-11-04T10:00:00", "Offsite budget", "The budget is 4000."),
    "projects/budget-review.md": (
        "2026-11-18T11:30:00",
        "Budget review",
        "Sarah wants to cap the budget at 3000; we decided to drop the boat trip.",
    ),
    "people/tom.md": ("2026-11-23T09:15:00", "Tom", "Tom likes green tea."),
    "ideas/desk-lamp.md": ("2026-11-23T22:00:00", "Desk lamp", "A lamp for the desk."),
    "admin/dentist.md": ("2026-11-24T08:00:00", "Dentist", "Call the dentist."),
}
YESTERDAY = ["people/tom.md", "ideas/desk-lamp.md"]


def _write_notes(vault: Path) -> None:
    for path, (created, title, body) in NOTES.items():
        note = vault / path
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(
            f"---\ntitle: {title}\ncreated: {created}\nupdated: {created}\n"
            f"timezone: {ZONE}\n---\n{body}\n",
            encoding="utf-8",
        )


def _listed(text: str) -> list[str]:
    return sorted(path for path in NOTES if f"({path})" in text)


async def test_without_a_model_yesterday_lists_what_was_filed_then(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(NOW)
    async with running_brain(tmp_path, database_url, clock=clock, BRAINBOT_TIMEZONE=ZONE) as brain:
        _write_notes(brain.settings.vault_dir)
        await brain.store.sync()
        answers = {
            question: (await brain.engine.handle(message(question)))[0].text
            for question in (
                "what did I capture yesterday?",
                "was habe ich gestern notiert?",
                "qu'ai-je noté hier ?",
            )
        }
        budget = (
            await brain.engine.handle(message("what did I write about the budget last week?"))
        )[0].text
        before = sorted(NOTES)
        on_disk = sorted(
            p.relative_to(brain.settings.vault_dir).as_posix()
            for p in brain.settings.vault_dir.rglob("*.md")
        )

    for question, text in answers.items():
        # No word of the question is in these notes: the day alone found them.
        assert _listed(text) == sorted(YESTERDAY), (question, text)
        assert "filed on 2026-11-23" in text
    assert _listed(budget) == ["projects/budget-review.md"], budget
    assert 'about "budget" filed or changed 2026-11-16 to 2026-11-22 ("last week")' in budget
    assert on_disk == before  # the questions were answered, not filed


async def test_without_a_model_a_question_without_time_words_searches_as_before(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(
        tmp_path, database_url, clock=Clock(NOW), BRAINBOT_TIMEZONE=ZONE
    ) as brain:
        _write_notes(brain.settings.vault_dir)
        await brain.store.sync()
        (reply,) = await brain.engine.handle(message("what did I write about the budget?"))
        (offsite,) = await brain.engine.handle(message("what happens before the offsite?"))

    assert reply.text.startswith('Notes about "budget":')
    assert _listed(reply.text) == ["ideas/offsite-budget.md", "projects/budget-review.md"]
    # "before the offsite" is no date: the offsite note is found by its word.
    assert "ideas/offsite-budget.md" in offsite.text


async def test_with_a_model_the_persons_yesterday_wins_over_the_models_date(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "search_entries",
            query="notes",
            category=None,
            tags=None,
            status=None,
            modified_after="2026-11-01",
            modified_before="2026-11-30",
            limit=5,
        ),
        say("Yesterday you filed a note about Tom and one about a desk lamp."),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, clock=Clock(NOW), BRAINBOT_TIMEZONE=ZONE
    ) as brain:
        _write_notes(brain.settings.vault_dir)
        await brain.store.sync()
        (reply,) = await brain.engine.handle(message("what did I save yesterday?"))

    assert "desk lamp" in reply.text
    (result,) = [m for m in openai_fake.chat_requests()[1]["messages"] if m["role"] == "tool"]
    data = json.loads(result["content"])
    assert sorted(hit["path"] for hit in data["results"]) == sorted(YESTERDAY)
    assert data["range"]["after"] == data["range"]["before"] == "2026-11-23"
    assert data["range"]["read_from"] == "the user's words"
    assert data["range"]["ignored_model_dates"] == ["2026-11-01", "2026-11-30"]


async def test_a_thoughts_date_does_not_bound_the_models_lookup(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """ "yesterday Sarah said..." is a thought: the model looking Sarah up finds her
    older notes, not only yesterday's."""
    openai_fake.script = [
        call(
            "search_entries",
            query="Sarah",
            category=None,
            tags=None,
            status=None,
            modified_after=None,
            modified_before=None,
            limit=5,
        ),
        say("Noted."),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, clock=Clock(NOW), BRAINBOT_TIMEZONE=ZONE
    ) as brain:
        _write_notes(brain.settings.vault_dir)
        await brain.store.sync()
        await brain.engine.handle(message("yesterday Sarah said the caterer is booked"))

    (result,) = [m for m in openai_fake.chat_requests()[1]["messages"] if m["role"] == "tool"]
    data = json.loads(result["content"])
    assert "range" not in data
    assert [hit["path"] for hit in data["results"]] == ["projects/budget-review.md"]
