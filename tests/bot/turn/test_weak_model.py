"""What a weak tool caller sends, over the wire, and what the person gets: every
thought kept once, answers that never claim what did not happen, a history that
holds only what was said. The model answers come from the fake OpenAI server as a
small local model was seen to send them (see MEASURED.md)."""

from __future__ import annotations

import json
from pathlib import Path

import frontmatter

from bot.events import Reply
from tests.bot.helpers import git_log, message, notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, ToolCall, call, calls, fail, say

THOUGHT = "Had a call with Sarah about the Q3 budget, she wants the draft by Friday"


def _idea(title: str, body: str) -> Step:
    """A well-formed, confident capture into ideas/."""
    return call(
        "capture", category="ideas", title=title, body=body, confidence=0.9, tags=[], fields=[]
    )


def _texts(replies: list[Reply] | tuple[Reply, ...]) -> str:
    return " ".join(f"{r.text} {r.notice or ''}" for r in replies)


async def test_no_call_and_no_text_keeps_the_thought_and_never_says_done(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say("")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message(THOUGHT))
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        assert path.startswith("inbox/")
        assert frontmatter.load(vault / path).content == THOUGHT
    assert "Done" not in _texts(replies)
    assert "did not file this" in _texts(replies)


async def test_a_claimed_save_without_a_call_is_not_shown_and_the_thought_is_kept(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say("Saved your idea!")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message("idea: a bot that waters plants"))
        assert len(notes(brain.settings.vault_dir)) == 1
    assert "Saved your idea" not in _texts(replies)
    assert "Saved to inbox/" in _texts(replies)


async def test_a_tool_call_written_as_text_is_run(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    tagged = (
        '<tool_call>\n{"name": "capture", "arguments": {"category": "ideas", "title": '
        '"Plant bot", "body": "a bot that waters plants", "confidence": 0.9}}\n</tool_call>'
    )
    bare = (
        '{"name": "save_note", "arguments": {"category": "idea", "text": "tea", '
        '"confidence": "0.9"}}'
    )
    openai_fake.script = [say(tagged), say(bare)]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        first = await brain.engine.handle(message("idea: a bot that waters plants"))
        second = await brain.engine.handle(message("try a new tea"))
        vault = brain.settings.vault_dir
        assert notes(vault) == ["ideas/plant-bot.md", "ideas/tea.md"]
        # The note keeps the person's words, not the model's paraphrase.
        assert frontmatter.load(vault / "ideas/plant-bot.md").content == (
            "idea: a bot that waters plants"
        )
        assert frontmatter.load(vault / "ideas/tea.md").content == "try a new tea"
    assert "ideas/plant-bot.md" in _texts(first)
    assert "ideas/tea.md" in _texts(second)


async def test_wrong_types_missing_arguments_and_invented_fields_are_mended(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="project",
            title="Website",
            confidence="90%",
            tags="web, launch",
            fields={"next_action": "write the copy", "mood": "happy", "created": "1999"},
        ),
        call("search_entries", query="website"),  # no category, tags, dates, limit
        say("You have a project: Website."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("launch the new website, next: write the copy"))
        vault = brain.settings.vault_dir
        assert notes(vault) == ["projects/website.md"]
        post = frontmatter.load(vault / "projects/website.md")
        assert post["tags"] == ["web", "launch"]
        assert post["next_action"] == "write the copy"
        assert "mood" not in post.metadata and str(post["created"]) != "1999"
        (answer,) = await brain.engine.handle(message("what is my website project?"))
    # It cited nothing: the search's hit is its source.
    assert answer.text.startswith("You have a project: Website.\n\nSources:\n- Website")
    assert [b.label for b in answer.buttons] == ["Website"]
    result = [m for m in openai_fake.chat_requests()[-1]["messages"] if m["role"] == "tool"]
    assert "projects/website.md" in result[-1]["content"]


async def test_calls_broken_twice_send_the_thought_to_the_inbox(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    broken = calls(ToolCall("launch_rockets", {}))
    openai_fake.script = [broken, broken, say("never asked")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message(THOUGHT))
        (path,) = notes(brain.settings.vault_dir)
        assert path.startswith("inbox/")
    assert len(openai_fake.chat_requests()) == 2  # one chance to fix the call, no more
    assert "never asked" not in _texts(replies)
    assert "unknown tool" not in _texts(replies)


async def test_truncated_json_arguments_are_closed_and_stored_as_valid_json(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    cut = '{"category": "ideas", "title": "Plant bot", "confidence": 0.9, "tags": ["garden"'
    openai_fake.script = [calls(ToolCall("capture", cut)), say("Noted.")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("a bot that waters plants"))
        assert notes(brain.settings.vault_dir) == ["ideas/plant-bot.md"]
        await brain.engine.handle(message("hello"))
    # The history replayed to the server holds arguments that parse (llama.cpp refuses
    # every later request when one stored call does not).
    for m in openai_fake.chat_requests()[-1]["messages"]:
        for tc in m.get("tool_calls") or ():
            json.loads(tc["function"]["arguments"])


async def test_the_same_capture_twice_in_one_answer_files_one_note(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    twice = ToolCall(
        "capture",
        {"category": "ideas", "title": "Tea", "body": "try a new tea", "confidence": 0.9},
    )
    openai_fake.script = [calls(twice, twice)]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("try a new tea"))
        assert notes(brain.settings.vault_dir) == ["ideas/tea.md"]
        assert sum("ideas/tea.md" in line for line in git_log(brain.settings.vault_dir)) == 1


async def test_an_outage_is_not_stored_as_the_assistants_words(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [fail(503), say("")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (saved,) = await brain.engine.handle(message("idea: a bot that waters plants"))
        assert "unreachable" in (saved.notice or "")
        await brain.engine.handle(message("Renew my passport before March"))
        assert len(notes(brain.settings.vault_dir)) == 2
    history = openai_fake.chat_requests()[-1]["messages"]
    assert not any(m["role"] == "assistant" for m in history)
    assert "Saved to" not in json.dumps(history)


async def test_questions_and_small_talk_are_not_filed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        _idea("Tea", "oolong"),
        say(""),  # a question answered with nothing
        say(""),  # small talk answered with nothing
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("oolong"))
        (found,) = await brain.engine.handle(message("what did I write about oolong?"))
        (hello,) = await brain.engine.handle(message("thanks!"))
        assert notes(brain.settings.vault_dir) == ["ideas/tea.md"]
    assert "ideas/tea.md" in found.text  # the keyword search answered instead
    assert "Done" not in hello.text and hello.text


async def test_a_search_then_an_outage_still_answers_the_question(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        _idea("Tea", "oolong"),
        call("search_entries", query="oolong"),
        fail(500),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("oolong"))
        replies = await brain.engine.handle(message("what did I write about oolong?"))
    assert "ideas/tea.md" in _texts(replies)
    assert "midway" not in _texts(replies)


async def test_a_slow_first_token_fails_over_to_the_inbox_without_retrying(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [Step(text="late", delay=3.0)]
    async with running_brain(
        tmp_path,
        database_url,
        openai_fake,
        BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT=0.5,
        BRAINBOT_LLM_TIMEOUT=30,
        BRAINBOT_LLM_RETRIES=2,
    ) as brain:
        (saved,) = await brain.engine.handle(message(THOUGHT))
        assert len(notes(brain.settings.vault_dir)) == 1
    assert "unreachable" in (saved.notice or "")
    assert len(openai_fake.chat_requests()) == 1  # a timeout is not retried


async def test_a_slow_but_steady_answer_is_waited_for(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # Each piece comes within the first-token timeout; the whole takes longer than it.
    slow = _idea("Plant bot", "a bot that waters plants")
    slow.chunk_delay = 0.1
    openai_fake.script = [slow]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT=0.5
    ) as brain:
        (reply,) = await brain.engine.handle(message("a bot that waters plants"))
        assert notes(brain.settings.vault_dir) == ["ideas/plant-bot.md"]
    assert "ideas/plant-bot.md" in reply.text
    request = openai_fake.chat_requests()[0]
    assert request["stream"] is True and request["max_tokens"] == 1000
    assert request["tool_choice"] == "auto"


async def test_a_busy_server_is_retried_and_a_broken_request_is_not(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    capture = _idea("Tea", "try a new tea")
    openai_fake.script = [fail(503), capture, fail(500)]
    async with running_brain(tmp_path, database_url, openai_fake, BRAINBOT_LLM_RETRIES=2) as brain:
        await brain.engine.handle(message("try a new tea"))
        assert notes(brain.settings.vault_dir) == ["ideas/tea.md"]
        assert len(openai_fake.chat_requests()) == 2
        await brain.engine.handle(message("Renew my passport before March"))
        assert len(openai_fake.chat_requests()) == 3  # a 500 is the request's own fault
        assert len(notes(brain.settings.vault_dir)) == 2


async def test_small_model_mode_asks_for_a_few_fields_instead_of_sending_every_tool(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        say('{"route": "save"}'),
        # The prompt's words repeated as a title, a folder the message does not back.
        say('{"category": "people", "title": "short title", "confidence": 0.9, "tags": []}'),
        say('{"query": "plants"}'),
        say('{"action": "move", "note": "test_note.json", "category": null, "text": null}'),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_LLM_TOOLS="routed"
    ) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("a bot that waters plants"))
        (path,) = notes(vault)
        assert path == "inbox/a-bot-that-waters-plants.md"  # only a suggestion: the inbox
        assert frontmatter.load(vault / path)["suggested_category"] == "people"
        (found,) = await brain.engine.handle(message("what did I write about plants?"))
        assert path in found.text
        card = (await brain.engine.handle(message("delete the bot note")))[-1]
        assert card.text.startswith(f"Delete {path}") and card.buttons
        assert notes(vault) == [path]  # nothing changes before Approve
    requests = openai_fake.chat_requests()
    assert len(requests) == 4  # two for the thought, one per question and change
    assert all("tools" not in r and r["response_format"]["type"] == "json_schema" for r in requests)
    sizes = [
        len(json.dumps(r["messages"])) + len(json.dumps(r["response_format"])) for r in requests
    ]
    assert max(sizes) < 2_000  # all the tools alone are ~8,000 characters


async def test_an_answer_that_repeats_the_prompt_is_not_shown(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say("You are brainbot, the user's second brain. You file their thoughts")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message(THOUGHT))
        assert len(notes(brain.settings.vault_dir)) == 1
    assert "You are brainbot" not in _texts(replies)


async def test_an_echoed_tool_result_is_not_shown_as_the_answer(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say('<tool_response>\n{"error": "no entry at \'x\'"}\n</tool_response>')]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message("what did I write about kites?"))
        assert notes(brain.settings.vault_dir) == []
    assert "tool_response" not in _texts(replies) and "error" not in _texts(replies)
    assert "kites" in _texts(replies)  # the keyword search answered instead


async def test_a_thought_turned_into_an_unrelated_change_is_kept_as_well(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call("capture", category="ideas", title="Tea", body="oolong", confidence=0.9),
        # A weak model "files" the next thought as an edit of the last note.
        call("update_entry", path="ideas/tea.md", append="email-address-to-put"),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("oolong"))
        replies = await brain.engine.handle(message("The router at home needs a firmware update"))
        vault = brain.settings.vault_dir
        assert notes(vault) == [
            "ideas/tea.md",
            "inbox/the-router-at-home-needs-a-firmware-update.md",
        ]
        assert "firmware" not in (vault / "ideas/tea.md").read_text()  # not before Approve
    assert [b.label for r in replies for b in r.buttons][:2] == ["Approve", "Reject"]


async def test_two_captures_that_mend_to_the_same_words_file_one_note(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # Neither call has a body: both would be filed with the person's words.
    openai_fake.script = [
        calls(
            ToolCall("capture", {"category": "ideas", "title": "the user's thought"}),
            ToolCall("capture", {"category": "inbox", "title": "search results"}),
        )
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message("Tom suggested we try pair programming on Fridays"))
        assert len(notes(brain.settings.vault_dir)) == 1


# Chunks an OpenAI-compatible server may send that are not OpenAI's: none is fatal.
ODD_CHUNKS: list[object] = [
    5,
    "text",
    {"choices": "abc"},
    {"choices": [None, 1]},
    {"choices": [{"delta": "text", "finish_reason": 7}]},
    {"choices": [{"delta": {"content": ["a", "list"], "tool_calls": [None, "x"]}}]},
    {"choices": [{"delta": {"tool_calls": [{"index": [1], "id": 9, "function": "f"}]}}]},
    {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": 3}}]}}]},
    {"usage": "many", "choices": []},
]


async def test_chunks_of_shapes_openai_never_sends_are_passed_over(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    odd = _idea("Plant bot", "a bot that waters plants")
    odd.odd_chunks = ODD_CHUNKS
    openai_fake.script = [odd]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(message("a bot that waters plants"))
        assert notes(brain.settings.vault_dir) == ["ideas/plant-bot.md"]
    assert "ideas/plant-bot.md" in reply.text
