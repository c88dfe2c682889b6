"""One section of a note, read and changed by its heading: adding to a section runs at
once with Undo as any append does; new text for a section waits for Approve and
leaves the rest of the note as it was."""

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

PLAN = "projects/garden.md"
BODY = (
    "Grow more vegetables.\n\n"
    "## Tasks\n- [ ] buy seeds\n- [ ] dig beds\n\n"
    "## Notes\nTomatoes like sun.\n\n"
    "```\n## not a heading\n```\n"
)
ADA = Author("Ada", "ada@example.org")


def update(**arguments: Any) -> Step:
    nothing = {"set_fields": None, "remove_fields": None, "body": None, "append": None}
    return call("update_entry", path=PLAN, **{**nothing, **arguments})


async def _with_plan(brain: Runtime) -> Path:
    await brain.store.create("projects", "Garden", BODY, {"status": "active"}, author=ADA)
    return brain.settings.vault_dir


def _body(vault: Path) -> str:
    return frontmatter.load(vault / PLAN).content


def _only(replies: list[Reply] | Any, label: str) -> Reply:
    (reply,) = [r for r in replies if r.buttons]
    assert label in [b.label for b in reply.buttons]
    return reply


def _tool_results(openai_fake: FakeOpenAI) -> list[dict[str, Any]]:
    messages = openai_fake.chat_requests()[-1]["messages"]
    return [json.loads(m["content"]) for m in messages if m.get("role") == "tool"]


async def test_appending_to_a_section_runs_at_once_in_that_section_and_undo_reverts_it(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(section="Tasks", append="- [ ] water the beds")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_plan(brain)
        before = (vault / PLAN).read_text()
        replies = await brain.engine.handle(message("add water the beds to my garden tasks"))
        reply = _only(replies, "Undo")
        assert reply.text == f'Updated {PLAN}: added "- [ ] water the beds" under Tasks.'
        assert _body(vault) == BODY.replace(
            "- [ ] dig beds\n", "- [ ] dig beds\n- [ ] water the beds\n"
        ).rstrip("\n")
        assert git_log(vault)[0] == f"append {PLAN}"
        (undone,) = await brain.engine.handle(press(reply, "Undo"))
        assert undone.text.startswith("Undone") and (vault / PLAN).read_text() == before


async def test_prepending_under_a_heading_and_making_a_missing_one_are_appends_too(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        update(section="Notes", prepend="Plant basil next to them."),
        update(section="Harvest", append="- first courgette"),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_plan(brain)
        _only(await brain.engine.handle(message("add plant basil to my garden notes")), "Undo")
        assert "## Notes\nPlant basil next to them.\n\nTomatoes like sun.\n" in _body(vault)
        said = message("add first courgette to a harvest section of my garden plan")
        _only(await brain.engine.handle(said), "Undo")
        assert _body(vault).endswith("```\n## not a heading\n```\n\n## Harvest\n- first courgette")
        assert git_log(vault)[:2] == [f"append {PLAN}", f"append {PLAN}"]


async def test_new_text_for_a_section_waits_for_approve_and_keeps_the_rest(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(section="Tasks", body="- [ ] order compost\n")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_plan(brain)
        before = (vault / PLAN).read_text()
        card = _only(
            await brain.engine.handle(message("my garden tasks are now: order compost")), "Approve"
        )
        assert card.preview is not None
        assert "-- [ ] buy seeds" in card.preview and "+- [ ] order compost" in card.preview
        assert (vault / PLAN).read_text() == before
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved")
        assert _body(vault) == (
            "Grow more vegetables.\n\n## Tasks\n- [ ] order compost\n\n"
            "## Notes\nTomatoes like sun.\n\n```\n## not a heading\n```"
        )
        assert git_log(vault)[0] == f"update {PLAN}"


async def test_get_entry_reads_one_section_and_names_the_headings_when_it_is_missing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("get_entry", path=PLAN, section="notes"),
        call("get_entry", path=PLAN, section="not a heading"),
        say("Tomatoes like sun."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _with_plan(brain)
        await brain.engine.handle(message("what are my garden notes?"))
        section, missing = _tool_results(openai_fake)
        assert section["section"] == "Notes"
        assert section["body"] == "## Notes\nTomatoes like sun.\n\n```\n## not a heading\n```"
        assert missing == {
            "error": f"no heading 'not a heading' in {PLAN}; its headings: ## Tasks, ## Notes"
        }


async def test_a_section_update_of_a_note_changed_since_it_was_read_changes_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(section="Tasks", body="- [ ] order compost\n")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_plan(brain)
        card = _only(await brain.engine.handle(message("garden tasks: order compost")), "Approve")
        await brain.store.update(PLAN, body=BODY + "\nEdited in Obsidian.\n", author=ADA)
        edited = (vault / PLAN).read_text()
        log = git_log(vault)
        (stale,) = await brain.engine.handle(press(card, "Approve"))
        assert "changed after the preview" in stale.text
        assert (vault / PLAN).read_text() == edited and git_log(vault) == log
