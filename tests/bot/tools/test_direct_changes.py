"""Small changes (append, add a tag, tick or untick a task) run at once and the reply
carries an Undo button that reverts exactly that change; everything that overwrites
or removes still waits for Approve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter
import pytest

from app.runtime import Runtime
from bot.events import Reply
from storage.entry import Author
from tests.bot.helpers import git_log, message, notes, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, ToolCall, call, calls, say

SHOPPING = "admin/shopping-list.md"
LIST = "- [ ] milk\n- [ ] eggs\n- [x] flour\n"
ADA = Author("Ada", "ada@example.org")
BOB = Author("Bob", "bob@example.org")


def update(**arguments: Any) -> Step:
    # Strict tool schemas: every argument is sent, null when not meant.
    nothing = {"set_fields": None, "remove_fields": None, "body": None, "append": None}
    return call("update_entry", path=SHOPPING, **{**nothing, **arguments})


async def _with_list(brain: Runtime) -> Path:
    await brain.store.create(
        "admin", "Shopping list", LIST, {"tags": ["food"], "status": "open"}, author=ADA
    )
    await brain.store.create("ideas", "Tea", "Try more kinds of tea.", {}, author=ADA)
    return brain.settings.vault_dir


def _with_undo(replies: list[Reply] | tuple[Reply, ...] | Any) -> Reply:
    (reply,) = [r for r in replies if r.buttons]
    assert [b.label for b in reply.buttons] == ["Undo"]
    return reply


def _card(replies: list[Reply] | tuple[Reply, ...] | Any) -> Reply:
    (card,) = [r for r in replies if r.buttons]
    assert [b.label for b in card.buttons] == ["Approve", "Reject"]
    return card


def _body(vault: Path) -> str:
    return frontmatter.load(vault / SHOPPING).content


SMALL = {
    "append": (
        "add bread to my shopping list",
        update(append="- [ ] bread"),
        lambda post: post.content.endswith("- [x] flour\n\n- [ ] bread"),
    ),
    "tag": (
        "tag my shopping list as weekly",
        update(set_fields=[{"name": "tags", "value": "food, weekly"}]),
        lambda post: post["tags"] == ["food", "weekly"],
    ),
    "tick": (
        "mark milk and eggs as done",
        call("tick_tasks", path=SHOPPING, items=["milk", "eggs"], done=True),
        lambda post: post.content == "- [x] milk\n- [x] eggs\n- [x] flour",
    ),
    "untick": (
        "untick flour, I still need some",
        call("tick_tasks", path=SHOPPING, items=["flour"], done=False),
        lambda post: post.content == "- [ ] milk\n- [ ] eggs\n- [ ] flour",
    ),
    "tick by rewriting the text": (
        "milk is done",
        update(body=LIST.replace("- [ ] milk", "- [x] milk")),
        lambda post: post.content == "- [x] milk\n- [ ] eggs\n- [x] flour",
    ),
}
# The commit's subject says what kind of change it was, as `git log` shows it.
SUBJECT = {
    "append": "append",
    "tag": "tag",
    "tick": "tick",
    "untick": "untick",
    "tick by rewriting the text": "tick",
}


@pytest.mark.parametrize("kind", list(SMALL))
async def test_a_small_change_runs_at_once_and_its_undo_reverts_it(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, kind: str
) -> None:
    said, step, changed = SMALL[kind]
    openai_fake.script = [step]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        before = (vault / SHOPPING).read_text()
        commits = git_log(vault)
        reply = _with_undo(await brain.engine.handle(message(said)))
        assert changed(frontmatter.load(vault / SHOPPING)), (vault / SHOPPING).read_text()
        assert git_log(vault) == [f"{SUBJECT[kind]} {SHOPPING}", *commits]  # one commit
        assert notes(vault) == [SHOPPING, "ideas/tea.md"]  # nothing kept in the inbox
        assert SHOPPING in reply.text
        assert len(openai_fake.chat_requests()) == 1  # the result is the answer
        (undone,) = await brain.engine.handle(press(reply, "Undo"))
        assert undone.replace and undone.text.startswith("Undone: ")
        assert (vault / SHOPPING).read_text() == before
        assert git_log(vault)[0].startswith("undo ") and len(git_log(vault)) == len(commits) + 2


async def test_a_change_the_model_then_talks_about_keeps_its_undo(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        calls(
            ToolCall("tick_tasks", {"path": SHOPPING, "items": ["milk"], "done": True}),
            ToolCall("get_entry", {"path": SHOPPING}),
        ),
        say("Milk is ticked; eggs are still on the list."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        replies = await brain.engine.handle(message("got the milk, what's left?"))
        assert [r.text for r in replies] == [
            f"Ticked milk in {SHOPPING}.",
            "Milk is ticked; eggs are still on the list.",
        ]
        (undone,) = await brain.engine.handle(press(_with_undo(replies), "Undo"))
        assert undone.text.startswith("Undone") and _body(vault) == LIST.rstrip("\n")


async def test_in_small_model_mode_an_append_runs_at_once_with_undo(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    answer = '{"action": "append", "note": "Shopping list", "category": null, "text": "bread"}'
    openai_fake.script = [say(answer)]
    overrides = {"BRAINBOT_LLM_TOOLS": "routed"}
    async with running_brain(tmp_path, database_url, openai_fake, **overrides) as brain:
        vault = await _with_list(brain)
        said = message("append bread to the shopping list note")
        reply = _with_undo(await brain.engine.handle(said))
        assert reply.text == f'Updated {SHOPPING}: added "bread".'
        assert _body(vault).endswith("- [x] flour\n\nbread")


async def test_undo_reverts_only_its_own_change_after_others_and_only_once(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(append="- [ ] bread"), say("You're welcome.")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        before = (vault / SHOPPING).read_text()
        reply = _with_undo(await brain.engine.handle(message("add bread to my shopping list")))
        # Another note changes in between: the Undo is for the list, not "the latest".
        await brain.store.update("ideas/tea.md", body="Oolong is the best.", author=BOB)
        (undone,) = await brain.engine.handle(press(reply, "Undo"))
        assert undone.text == f'Undone: Updated {SHOPPING}: added "- [ ] bread".'
        assert (vault / SHOPPING).read_text() == before
        assert frontmatter.load(vault / "ideas/tea.md").content == "Oolong is the best."
        log = git_log(vault)
        assert log[:3] == [
            f"undo {log[0].split()[1]} (append {SHOPPING})",
            "update ideas/tea.md",
            f"append {SHOPPING}",
        ]
        assert await brain.engine.handle(press(reply, "Undo")) == []  # a second press
        assert git_log(vault) == log
        assert "bread" not in [h.path for h in (await brain.store.search("bread")).hits]
        await brain.engine.handle(message("thanks"))
    # The model hears of the undo with the next message.
    history = [m.get("content") or "" for m in openai_fake.chat_requests()[-1]["messages"]]
    assert any(t.startswith("(The user pressed Undo") and SHOPPING in t for t in history)


async def test_an_undo_that_a_later_change_overlaps_says_so_and_changes_nothing(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(append="- [ ] bread")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        reply = _with_undo(await brain.engine.handle(message("add bread to my shopping list")))
        body = _body(vault).replace("- [ ] bread", "- [ ] rye bread")
        await brain.store.update(SHOPPING, body=body, author=BOB)
        after = (vault / SHOPPING).read_text()
        log = git_log(vault)
        (refused,) = await brain.engine.handle(press(reply, "Undo"))
        assert "Not undone: a later change to admin/shopping-list.md" in refused.text
        assert "nothing changed" in refused.text and refused.replace and not refused.buttons
        assert (vault / SHOPPING).read_text() == after and git_log(vault) == log


DESTRUCTIVE = {
    "replace the text": ("replace my shopping list with bread", update(body="- [ ] bread\n")),
    "remove a field": ("remove the tags of my shopping list", update(remove_fields=["tags"])),
    "set a field that has a value": (
        "set my shopping list to done",
        update(set_fields=[{"name": "status", "value": "done"}]),
    ),
    "append and change a value": (
        "add bread to my shopping list and set it done",
        update(append="- [ ] bread", set_fields=[{"name": "status", "value": "done"}]),
    ),
    "tick and add a line in the text": (
        "milk is done, and bread",
        update(body=LIST.replace("- [ ] milk", "- [x] milk") + "- [ ] bread\n"),
    ),
    "delete": ("delete my shopping list", call("delete_entry", path=SHOPPING)),
    "move an older note": (
        "move my shopping list to projects",
        call("move_entry", path=SHOPPING, category="projects"),
    ),
    "undo": ("undo that", call("undo", change=None)),
}


@pytest.mark.parametrize("kind", list(DESTRUCTIVE))
async def test_what_overwrites_or_removes_still_waits_for_approve(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, kind: str
) -> None:
    said, step = DESTRUCTIVE[kind]
    openai_fake.script = [step]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        before = (vault / SHOPPING).read_text()
        commits = git_log(vault)
        card = _card(await brain.engine.handle(message(said)))
        assert card.preview
        assert (vault / SHOPPING).read_text() == before and git_log(vault) == commits
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved") and len(git_log(vault)) == len(commits) + 1


async def test_with_no_direct_changes_an_append_waits_for_approve(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [update(append="- [ ] bread")]
    overrides = {"BRAINBOT_DIRECT_CHANGES": ""}
    async with running_brain(tmp_path, database_url, openai_fake, **overrides) as brain:
        vault = await _with_list(brain)
        before = (vault / SHOPPING).read_text()
        card = _card(await brain.engine.handle(message("add bread to my shopping list")))
        assert "+- [ ] bread" in (card.preview or "")
        assert (vault / SHOPPING).read_text() == before


@pytest.mark.parametrize(("direct", "at_once"), [("append,tag,tick,fill", True), (None, False)])
async def test_filling_an_empty_field_runs_at_once_only_when_fill_is_named(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, direct: str | None, at_once: bool
) -> None:
    openai_fake.script = [update(set_fields=[{"name": "due", "value": "2026-12-01"}])]
    overrides = {"BRAINBOT_DIRECT_CHANGES": direct} if direct is not None else {}
    async with running_brain(tmp_path, database_url, openai_fake, **overrides) as brain:
        vault = await _with_list(brain)
        replies = await brain.engine.handle(message("my shopping list is due 2026-12-01"))
        due = frontmatter.load(vault / SHOPPING).get("due")
        if at_once:
            assert "Undo" in [b.label for b in _with_undo(replies).buttons]
            assert str(due) == "2026-12-01"
        else:
            _card(replies)
            assert due is None


async def test_a_model_change_that_uses_none_of_the_persons_words_waits(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """An append is small, but a weak model's guess at a note the person never named is
    not theirs: it waits for Approve (and the thought is kept)."""
    openai_fake.script = [update(append="- [ ] motor oil")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = await _with_list(brain)
        before = (vault / SHOPPING).read_text()
        replies = await brain.engine.handle(message("The router at home needs a firmware update"))
        assert [b.label for r in replies for b in r.buttons][:2] == ["Approve", "Reject"]
        assert (vault / SHOPPING).read_text() == before


async def test_commands_append_tag_tick_and_untick_at_once_with_undo(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = await _with_list(brain)
        commits = len(git_log(vault))
        said = [
            '/append "Shopping list" - [ ] bread',
            '/tag "Shopping list" #weekly',
            '/tick "Shopping list" milk, eggs',
            '/untick "Shopping list" flour',
        ]
        replies = [_with_undo(await brain.engine.handle(message(text))) for text in said]
        post = frontmatter.load(vault / SHOPPING)
        assert post.content == "- [x] milk\n- [x] eggs\n- [ ] flour\n\n- [ ] bread"
        assert post["tags"] == ["food", "weekly"]
        assert len(git_log(vault)) == commits + 4
        assert [r.text for r in replies] == [
            f'Updated {SHOPPING}: added "- [ ] bread".',
            f"Updated {SHOPPING}: tagged #weekly.",
            f"Ticked milk, eggs in {SHOPPING}.",
            f"Unticked flour in {SHOPPING}.",
        ]
        (undone,) = await brain.engine.handle(press(replies[3], "Undo"))
        assert undone.text == f"Undone: Unticked flour in {SHOPPING}."
        assert _body(vault) == "- [x] milk\n- [x] eggs\n- [x] flour\n\n- [ ] bread"
        assert frontmatter.load(vault / SHOPPING)["tags"] == ["food", "weekly"]
        (unclear,) = await brain.engine.handle(message('/tick "Shopping list" bread, rye'))
        assert unclear.text.startswith("Sorry: ") and 'no task matches "rye"' in unclear.text
        assert len(git_log(vault)) == commits + 5


async def test_a_tick_waits_for_approve_when_ticks_are_not_direct(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_DIRECT_CHANGES="append") as brain:
        vault = await _with_list(brain)
        card = _card(await brain.engine.handle(message('/tick "Shopping list" milk')))
        assert card.text.startswith(f"Tick milk in {SHOPPING}?")
        assert "-- [ ] milk" in (card.preview or "") and "+- [x] milk" in (card.preview or "")
        assert _body(vault) == LIST.rstrip("\n")
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved") and _body(vault).startswith("- [x] milk")
        help_text = (await brain.engine.handle(message("/help")))[0].text
        assert "Small changes (adding a line) happen at once with an Undo button" in help_text
