"""The digest on demand carries working buttons; settings change in words."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from storage.entry import Author
from tests.bot.helpers import message, notes, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call, fail, say


async def test_digest_on_demand_has_done_buttons_that_commit(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.store.create(
            "projects",
            "Roof",
            "Fix the roof.",
            {"status": "active", "next_action": "call the roofer"},
            author=Author("Ada", "ada@example.org"),
        )
        (digest,) = await brain.engine.handle(message("/digest"))
        assert "call the roofer" in digest.text
        (done,) = await brain.engine.handle(press(digest, "Done 1"))
        post = frontmatter.load(brain.settings.vault_dir / "projects/roof.md")
        assert done.replace and post["status"] == "done"
        assert await brain.engine.handle(press(digest, "Done 1")) == []


async def test_settings_change_in_words_through_the_model(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "update_settings",
            digest_time="07:15",
            digest_enabled=None,
            timezone="Europe/Berlin",
            weekly_day="friday",
        ),
        say("From now on: 07:15 Berlin time, weekly review on Fridays."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(
            message("send my digest at 7:15 Berlin time, review on fridays")
        )
        (person,) = await brain.records.people.all()
        assert notes(brain.settings.vault_dir) == []
    assert reply.text.startswith("From now on")
    assert (person.digest_time, person.timezone, person.weekly_day) == ("07:15", "Europe/Berlin", 4)


async def test_the_model_turns_the_weekly_review_off(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "update_settings",
            digest_time=None,
            digest_enabled=None,
            timezone=None,
            weekly_day="off",
        ),
        say("No more weekly reviews."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("no weekly review please"))
        (person,) = await brain.records.people.all()
        shown = brain.engine.people.describe(person)
    assert "weekly review off" in shown


async def test_a_model_outage_after_a_tool_ran_reports_it_and_files_nothing_twice(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "update_settings",
            digest_time="06:45",
            digest_enabled=None,
            timezone=None,
            weekly_day=None,
        ),
        fail(503),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(message("digest at quarter to seven please"))
        (person,) = await brain.records.people.all()
        assert notes(brain.settings.vault_dir) == []
    assert person.digest_time == "06:45"
    assert "06:45" in reply.text and reply.notice is not None
