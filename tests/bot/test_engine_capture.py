"""Capturing through the LLM: one call per capture, low confidence, LLM down, dedupe."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import frontmatter

from tests.bot.helpers import git_log, git_status, message, notes, press
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, ToolCall, call, calls, say


async def test_capture_files_commits_indexes_and_replies_with_one_llm_call(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="projects",
            title="Launch the website",
            body="Launch the new website before the conference",
            confidence=0.9,
            tags=["web"],
            fields=[{"name": "next_action", "value": "write the copy"}],
        )
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message("launch the new website before the conference"))
        vault = brain.settings.vault_dir
        assert notes(vault) == ["projects/launch-the-website.md"]
        post = frontmatter.load(vault / "projects/launch-the-website.md")
        assert post["next_action"] == "write the copy"
        assert post["tags"] == ["web"]
        assert post["source_platform"] == "test"
        assert "before the conference" in post.content
        assert any("projects/launch-the-website.md" in line for line in git_log(vault))
        assert git_status(vault) == ""
        hits = (await brain.store.search("conference website")).hits
        assert [h.path for h in hits] == ["projects/launch-the-website.md"]
    assert len(replies) == 1
    assert "projects/launch-the-website.md" in replies[0].text
    assert len(openai_fake.chat_requests()) == 1


async def test_low_confidence_goes_to_inbox_and_a_category_button_files_it(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title="Tea",
            body="something about tea",
            confidence=0.3,
            tags=[],
            fields=[],
        )
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        vault = brain.settings.vault_dir
        (reply,) = await brain.engine.handle(message("something about tea"))
        assert notes(vault) == ["inbox/tea.md"]
        post = frontmatter.load(vault / "inbox/tea.md")
        assert post["suggested_category"] == "ideas"
        assert post["original_text"] == "something about tea"
        assert [b.label for b in reply.buttons] == ["people", "projects", "ideas", "admin"]
        (moved,) = await brain.engine.handle(press(reply, "projects"))
        assert moved.replace and "projects/tea.md" in moved.text
        assert notes(vault) == ["projects/tea.md"]
        again = await brain.engine.handle(press(reply, "ideas"))
        assert again == [] and notes(vault) == ["projects/tea.md"]
    assert len(openai_fake.chat_requests()) == 1  # the fix-up needed no model call


async def test_the_same_event_twice_captures_once_and_replies_once(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = lambda body: call(
        "capture", category="ideas", title="Kites", body="kites", confidence=0.9, tags=[], fields=[]
    )
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        event = message("kites", event_id="evt-1")
        first = await brain.engine.handle(event)
        second = await brain.engine.handle(event)
        assert len(first) == 1 and second == []
        assert notes(brain.settings.vault_dir) == ["ideas/kites.md"]
    assert len(openai_fake.chat_requests()) == 1


async def test_llm_down_saves_the_text_to_the_inbox_and_says_so(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.down = True
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(message("remember to water the plants"))
        (path,) = notes(brain.settings.vault_dir)
        assert path.startswith("inbox/")
        post = frontmatter.load(brain.settings.vault_dir / path)
        assert post.content.startswith("remember to water the plants")
    assert reply.notice is not None and "unreachable" in reply.notice
    assert path in reply.text


async def test_calls_that_cannot_be_mended_go_back_to_the_model_as_errors(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        calls(
            ToolCall("capture", "{not json"),
            ToolCall("launch_rockets", {}),
            ToolCall("get_entry", {}),
        ),
        say("Sorry, I could not do that."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        answer, kept = await brain.engine.handle(message("kites"))
        # The model filed nothing: the thought is kept in the inbox in the person's words.
        assert notes(brain.settings.vault_dir) == ["inbox/kites.md"]
        assert frontmatter.load(brain.settings.vault_dir / "inbox/kites.md").content == "kites"
        log = await brain.records.tool_log.calls()
    assert answer.text == "Sorry, I could not do that."
    assert kept.text == "Saved to inbox/kites.md." and "did not file this" in (kept.notice or "")
    tool_messages = [m for m in openai_fake.chat_requests()[1]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 3
    assert "invalid arguments" in tool_messages[0]["content"]
    assert "unknown tool" in tool_messages[1]["content"]
    assert "invalid arguments" in tool_messages[2]["content"]
    assert [entry.outcome for entry in log] == ["error", "ok"]


async def test_correction_in_words_refiles_the_last_capture_without_approval(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title="Garden shed",
            body="build a garden shed",
            confidence=0.8,
            tags=[],
            fields=[],
        ),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("build a garden shed"))
        (reply,) = await brain.engine.handle(message("actually that's a project"))
        assert notes(brain.settings.vault_dir) == ["projects/garden-shed.md"]
    assert "projects/garden-shed.md" in reply.text and not reply.buttons


async def test_model_asked_move_of_the_last_capture_needs_no_approval(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title="Shed",
            body="shed",
            confidence=0.8,
            tags=[],
            fields=[],
        ),
        call("move_entry", path="ideas/shed.md", category="projects"),
        say("Moved it to projects."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("shed"))
        (reply,) = await brain.engine.handle(message("hmm, it's more of a project really"))
        assert notes(brain.settings.vault_dir) == ["projects/shed.md"]
    assert reply.text == "Moved it to projects."


async def test_unknown_user_gets_one_polite_refusal_and_nothing_is_stored(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_ALLOWED_USERS="test:U1"
    ) as brain:
        event = message("let me in", user="U666")
        (reply,) = await brain.engine.handle(event)
        assert await brain.engine.handle(event) == []
        assert await brain.records.people.all() == []
        assert await brain.records.events.unfinished() == []
        assert notes(brain.settings.vault_dir) == []
    assert "only work for" in reply.text
    assert openai_fake.chat_requests() == []


async def test_oversize_message_is_refused_with_a_clear_message(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_MAX_MESSAGE_CHARS=100
    ) as brain:
        (reply,) = await brain.engine.handle(message("x" * 101))
        assert notes(brain.settings.vault_dir) == []
    assert "at most 100" in reply.text
    assert openai_fake.chat_requests() == []


async def test_the_model_is_told_the_date_in_the_persons_own_time_zone(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    clock = Clock(datetime(2026, 11, 20, 23, 30, tzinfo=UTC))  # already the 21st in Berlin
    openai_fake.script = [say("Noted.")]
    async with running_brain(
        tmp_path, database_url, openai_fake, clock=clock, BRAINBOT_TIMEZONE="Europe/Berlin"
    ) as brain:
        await brain.engine.handle(message("what day is it?"))
    messages = openai_fake.chat_requests()[0]["messages"]
    # The time comes with the message, after the history: the system prompt and the
    # tools stay the same from one message to the next (a local server's prompt cache).
    said = messages[-1]["content"]
    assert "Saturday 2026-11-21 00:30" in said and "Europe/Berlin" in said
    assert "2026" not in messages[0]["content"]
