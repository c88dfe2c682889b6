"""What a vault's tools file cannot do, whoever writes it: use a secret the install did
not allow for that vault, set headers that steer the request, climb out of the URL's
path with `..`; and an answer in a charset nobody knows still reaches the person."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bot.custom_tools.support import (
    TOKEN,
    brain_with_tools,
    declare,
    offered,
    tool_result,
    tools_yaml,
)
from tests.bot.helpers import message, press, vault_of
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call, say
from tests.fakes.tool_server import ToolServer

BOB = "U2"


def items_yaml(server: ToolServer) -> str:
    return f"""\
tools:
  - name: item
    description: One item by its id.
    url: {server.url}/items/{{id}}?q={{q}}
    parameters:
      type: object
      properties:
        id: {{type: string}}
        q: {{type: string}}
      required: [id, q]
      additionalProperties: false
    needs_approval: false
  - name: odd
    description: A service that answers in a charset nobody knows.
    url: {server.url}/odd-charset
    parameters: {{type: object, properties: {{charset: {{type: string}}}}}}
    needs_approval: false
"""


@pytest.mark.parametrize("charset", ["x-klingon", "base64"])  # unknown; not a text encoding
async def test_an_answer_in_an_unknown_charset_reaches_the_model_as_replacement_text(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer, charset: str
) -> None:
    openai_fake.script = [call("odd", charset=charset), say("It said café.")]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, items_yaml(server))
        replies = await brain.engine.handle(message("What does the odd service say?"))
    assert [r.text for r in replies] == ["It said café."]
    result = tool_result(openai_fake.chat_requests()[-1])
    assert result["status"] == 200 and result["body"] == "café ok\ufffd"


@pytest.mark.parametrize("value", ["..", "."])
async def test_a_dot_segment_in_the_path_is_refused_and_nothing_is_sent(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer, value: str
) -> None:
    openai_fake.script = [
        call("item", id=value, q=".."),
        call("item", id="../admin", q=".."),
        say("I could not."),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, items_yaml(server))
        replies = await brain.engine.handle(message("Show me the item above"))
    assert [r.text for r in replies] == ["I could not."]
    # A dot segment is refused; a value holding a slash is one encoded segment (and a
    # `..` in the query is only text).
    assert [s.path_qs for s in server.seen] == ["/items/..%2Fadmin?q=.."]
    first, _ = (
        json.loads(m["content"])
        for m in openai_fake.chat_requests()[-1]["messages"]
        if m["role"] == "tool"
    )
    assert first["error"] == (
        f"id: {value!r} cannot fill a part of the URL's path: `.` and `..` would leave "
        "it. Nothing was sent."
    )


async def test_the_card_shows_the_headers_with_the_secrets_masked(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    declared = tools_yaml(server).replace(
        "    url: " + server.url + "/notes\n",
        f"    url: {server.url}/notes\n    headers:\n"
        '      Authorization: "Bearer {secret:WEATHER_TOKEN}"\n'
        "      X-Board: ops\n",
    )
    openai_fake.script = [call("post_note", text="ship it")]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, declared)
        replies = await brain.engine.handle(message("Tell the team board: ship it"))
        (card,) = [r for r in replies if r.buttons]
        assert card.preview == (
            f"POST {server.url}/notes\n"
            "Authorization: Bearer {secret:WEATHER_TOKEN}\n"
            "X-Board: ops\n"
            '{\n  "text": "ship it"\n}'
        )
        await brain.engine.handle(press(card, "Approve"))
    (seen,) = server.seen
    assert seen.headers["Authorization"] == f"Bearer {TOKEN}" and seen.headers["X-Board"] == "ops"


@pytest.mark.parametrize(
    "header",
    [
        "Host: evil.example.net",
        "Content-Length: '0'",
        "Transfer-Encoding: chunked",
        "Connection: close",
        "Cookie: session=1",
        "Proxy-Authorization: Basic x",
    ],
)
async def test_a_header_that_steers_the_request_is_refused_and_the_tool_not_offered(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer, header: str
) -> None:
    declared = tools_yaml(server).replace(
        '      Authorization: "Bearer {secret:WEATHER_TOKEN}"\n',
        f'      Authorization: "Bearer {{secret:WEATHER_TOKEN}}"\n      {header}\n',
    )
    openai_fake.script = [call("weather", city="Oslo", units=None), say("No weather tool.")]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        declare(brain.settings.vault_dir, declared)
        replies = await brain.engine.handle(message("What's the weather in Oslo?"))
    assert [r.text for r in replies] == ["No weather tool."]
    assert server.seen == []
    first = openai_fake.chat_requests()[0]
    assert "weather" not in offered(first) and "post_note" in offered(first)


async def test_a_secret_is_not_sent_from_a_vault_it_is_not_allowed_for(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, server: ToolServer
) -> None:
    """The owner's token is allowed for the owner's vault only (the default): Bob's copy
    of the tool in his own vault is skipped, so the token never leaves for his chat."""
    openai_fake.script = [
        say("Hello."),
        say("Hello Bob."),
        call("weather", city="Oslo", units=None),
        say("I have no weather tool."),
    ]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TOOL_HOSTS=server.host
    ) as brain:
        await brain.engine.handle(message("Hello", user="U1"))  # Ada owns the install
        await brain.engine.handle(message("Hello", user=BOB))
        bob = await vault_of(brain, "test", BOB)
        declare(bob, tools_yaml(server))
        replies = await brain.engine.handle(message("What's the weather in Oslo?", user=BOB))
    assert [r.text for r in replies] == ["I have no weather tool."]
    assert server.seen == []
    asked = openai_fake.chat_requests()[2]
    assert "weather" not in offered(asked) and "post_note" in offered(asked)
    assert TOKEN not in json.dumps(openai_fake.chat_requests())


async def test_a_secret_allowed_for_a_vault_is_sent_from_it(
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    server: ToolServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ada is person 1 (the owner's vault, `vault`); Bob, also named Ada by the test
    # platform, is person 2: his vault is `ada-2` (see `brainbot vaults`).
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS", "ada-2")
    openai_fake.script = [
        say("Hello."),
        say("Hello Bob."),
        call("weather", city="Oslo", units=None),
        say("Sunny."),
    ]
    async with brain_with_tools(tmp_path, database_url, openai_fake, server) as brain:
        await brain.engine.handle(message("Hello", user="U1"))
        await brain.engine.handle(message("Hello", user=BOB))
        bob = await vault_of(brain, "test", BOB)
        assert bob.name == "ada-2"
        declare(bob, tools_yaml(server))
        replies = await brain.engine.handle(message("What's the weather in Oslo?", user=BOB))
        owner = openai_fake.chat_requests()[0]
    assert [r.text for r in replies] == ["Sunny."]
    (seen,) = server.seen
    assert seen.headers["Authorization"] == f"Bearer {TOKEN}"
    # Allowing it for Bob's vault takes it away from the owner's, which did not list it.
    assert "weather" not in offered(owner) and "post_note" in offered(owner)
