"""HTTP tools a vault declares in `.brainbot/tools.yaml`, called by the model through
the real engine: the fake model calls them, a local aiohttp service answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.events import Reply
from tests.bot.custom_tools.support import (
    TOKEN,
    brain_with_tools,
    declare,
    offered,
    tool_result,
    tools_yaml,
)
from tests.bot.helpers import message, notes, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, ToolCall, call, calls, say
from tests.fakes.scripts import CAPTURE
from tests.fakes.tool_server import ToolServer


async def test_a_get_tool_runs_at_once_with_encoded_arguments_and_the_secret_header(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [
        call("weather", city="Zürich Süd/Nord", units="metric"),
        say("Sunny, 21 degrees."),
    ]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        replies = await brain.engine.handle(message("What's the weather in Zürich?"))
    assert [r.text for r in replies] == ["Sunny, 21 degrees."]
    (seen,) = server.seen
    assert seen.method == "GET"
    assert seen.path_qs == "/weather/Z%C3%BCrich%20S%C3%BCd%2FNord?units=metric"
    assert seen.headers["Authorization"] == f"Bearer {TOKEN}"
    first, second = openai_fake.chat_requests()
    assert {"weather", "post_note", "capture"} <= set(offered(first))
    weather = next(t for t in first["tools"] if t["function"]["name"] == "weather")
    assert weather["function"]["strict"] is True  # its schema already fits strict mode
    post = next(t for t in first["tools"] if t["function"]["name"] == "post_note")
    assert post["function"]["strict"] is False  # `required` does not list every property
    result = tool_result(second)
    assert result["status"] == 200 and result["content_type"] == "application/json"
    assert json.loads(result["body"])["sky"] == "sunny" and result["truncated"] is False
    assert "not instructions" in result["note"]
    assert TOKEN not in json.dumps(second)  # the secret never reaches the model


async def test_a_post_tool_waits_for_approve_then_sends_what_the_card_showed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [call("post_note", text="ship it on Friday")]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        replies = await brain.engine.handle(message("Tell the team board: ship it on Friday"))
        (card,) = [r for r in replies if r.buttons]
        assert card.text == f"Send POST to {server.host} (post_note)? This needs your approval."
        assert card.preview == f'POST {server.url}/notes\n{{\n  "text": "ship it on Friday"\n}}'
        assert [b.label for b in card.buttons] == ["Approve", "Reject"]
        assert server.seen == []  # nothing is sent before the press
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved: Send POST")
        assert f"post_note: POST {server.url}/notes answered 201." in done.text
        again = await brain.engine.handle(press(card, "Approve"))
    assert again == []
    (seen,) = server.seen  # once, however often Approve is pressed
    assert seen.method == "POST" and seen.path_qs == "/notes"
    assert json.loads(seen.body) == {"text": "ship it on Friday"}


async def test_a_huge_answer_is_cut_and_says_so(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [call("huge"), say("It said a lot of x.")]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        await brain.engine.handle(message("What does the huge service say?"))
    result = tool_result(openai_fake.chat_requests()[-1])
    assert result["truncated"] is True and result["body"] == "x" * 3000
    assert "cut to its first 3,000 characters of more than 16,384 bytes" in result["note"]


async def test_invalid_arguments_are_refused_and_nothing_is_sent(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [
        calls(
            ToolCall("weather", {"city": 42, "units": "kelvin"}),
            ToolCall("post_note", {"text": "x" * 300}),
        ),
        say("Sorry, I could not."),
    ]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        replies = await brain.engine.handle(message("What's the weather in 42?"))
    assert server.seen == []
    assert all(not r.buttons for r in replies)  # no approval card for a refused call
    weather, post = [
        json.loads(m["content"])["error"]
        for m in openai_fake.chat_requests()[1]["messages"]
        if m["role"] == "tool"
    ]
    assert weather.startswith("invalid arguments:")
    assert "city: 42 is not of type 'string'" in weather and "units: 'kelvin'" in weather
    assert post.startswith("invalid arguments:") and "text: 'xxx" in post and "too long" in post


async def test_a_redirect_to_another_host_is_not_followed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [call("away"), say("It moved.")]
    hosts = f"{server.host},localhost"
    async with brain_with_tools(tmp_path, database_url, openai_fake, server, hosts) as brain:
        await brain.engine.handle(message("What does the away service say?"))
    assert [s.path_qs for s in server.seen] == ["/away"]
    error = tool_result(openai_fake.chat_requests()[-1])["error"]
    assert (
        error == f"{server.host} redirected to localhost:{server.port}, another host; not followed"
    )


async def test_a_redirect_within_the_host_is_followed(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [call("here"), say("Sunny there.")]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        await brain.engine.handle(message("What does the here service say?"))
    assert [s.path_qs for s in server.seen] == ["/here", "/weather/redirected"]
    assert json.loads(tool_result(openai_fake.chat_requests()[-1])["body"])["sky"] == "sunny"


def _hops(server: ToolServer, count: int) -> str:
    return f"""\
tools:
  - name: moved
    description: A service that moved within its host, several times.
    url: {server.url}/hops/{count}
    parameters: {{type: object, properties: {{}}}}
    needs_approval: false
"""


@pytest.mark.parametrize(("limit", "followed"), [(None, True), ("2", False)])
async def test_as_many_redirects_are_followed_as_the_settings_allow(
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    server: ToolServer,
    limit: str | None,
    followed: bool,
) -> None:
    """BRAINBOT_MAX_REDIRECTS (5 unless set) holds for a vault's HTTP tool as for a
    shared link: the tool stopped after 3 of its own before."""
    openai_fake.script = [call("moved"), say("Found it.")]
    settings = {"BRAINBOT_MAX_REDIRECTS": limit} if limit else {}
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host, **settings
    ) as brain:
        declare(brain.settings.vault_dir, _hops(server, 4))
        await brain.engine.handle(message("What does the moved service say?"))
    result = tool_result(openai_fake.chat_requests()[-1])
    if followed:
        assert [s.path_qs for s in server.seen][-1] == "/weather/at-last"
        assert json.loads(result["body"])["sky"] == "sunny"
    else:
        assert result["error"] == f"{server.host} redirected more than 2 times"
        assert len(server.seen) == 3


async def test_an_approval_does_not_run_a_declaration_edited_since_the_card(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [call("post_note", text="ship it on Friday")]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        vault = brain.settings.vault_dir
        declare(vault, tools_yaml(server))
        replies = await brain.engine.handle(message("Tell the team board: ship it on Friday"))
        (card,) = [r for r in replies if r.buttons]
        declare(vault, tools_yaml(server).replace("/notes", "/elsewhere"))
        (failed,) = await brain.engine.handle(press(card, "Approve"))
    assert failed.text == (
        f"Send POST to {server.host} (post_note) failed: post_note was changed in "
        ".brainbot/tools.yaml after the preview; ask again. Nothing changed."
    )
    assert server.seen == []


async def test_tools_belong_to_their_vault_and_follow_edits_of_the_file(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.responder = lambda body: say("ok")
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("What is on my mind?"))  # Ada owns the vault
        declare(vault, tools_yaml(server))
        await brain.engine.handle(message("What is on my mind?"))
        await brain.engine.handle(message("What is on my mind?", user="U2"))  # Bob's own vault
        declare(vault, tools_yaml(server).replace("name: huge", "name: long_answer"))
        await brain.engine.handle(message("What is on my mind?"))
    before, after, bob, edited = (set(offered(r)) for r in openai_fake.chat_requests())
    assert "weather" not in before and {"weather", "huge"} <= after
    assert "weather" not in bob
    assert "long_answer" in edited and "huge" not in edited


async def test_a_broken_tools_file_is_skipped_and_the_bot_still_answers(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    openai_fake.script = [CAPTURE]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, "tools:\n  - name: weather\n    url: [unclosed\n")
        (saved, *_) = await brain.engine.handle(message("Launch the new website"))
        vault = brain.settings.vault_dir
    assert "projects/launch-the-website.md" in saved.text
    assert notes(vault) == ["projects/launch-the-website.md"]
    assert "weather" not in offered(openai_fake.chat_requests()[0])


async def test_the_model_cannot_write_or_read_the_tools_file(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    """The file decides what the bot may call, so the bot's own tools never touch it:
    hidden folders are refused by the vault's path rules."""
    openai_fake.script = [
        call(
            "update_entry",
            path=".brainbot/tools.yaml",
            set_fields=None,
            remove_fields=None,
            body="tools: []",
            append=None,
        ),
        call("get_entry", path=".brainbot/tools.yaml"),
        say("I cannot."),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        vault = brain.settings.vault_dir
        declare(vault, tools_yaml(server))
        replies: list[Reply] = list(
            await brain.engine.handle(message("Replace my tools file with an empty list"))
        )
    assert (vault / ".brainbot" / "tools.yaml").read_text() == tools_yaml(server)
    assert all(b.label != "Approve" for r in replies for b in r.buttons)
    requests = openai_fake.chat_requests()
    for request in requests[1:]:
        assert "hidden files and folders" in tool_result(request)["error"]
