"""The endpoint probed, the mode chosen by itself: the fake server honours `tools`,
ignores them (answers in words, as llama.cpp without a tool-capable template does),
refuses them, is down at start and comes back, or comes back as another server; each
time the person's thought is filed by the mode that suits it, and `BRAINBOT_LLM_MODE`
forces one without asking."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from app.probes import mode as doctor_mode
from bot.turn.loop import tool_schemas
from bot.turn.mode import TURN_ROOM
from bot.turn.older_turns import estimate_tokens
from tests.bot.helpers import message, notes
from tests.fakes.brain import make_settings, running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, call, say

THOUGHT = "Renew my passport before March"


def _files_thoughts(body: dict[str, Any]) -> Step:
    """A model that files a thought as admin: by the `capture` tool when offered tools,
    else by the small-model mode's JSON answers."""
    if body.get("tools"):
        return call(
            "capture",
            category="admin",
            title="Renew passport",
            body=THOUGHT,
            confidence=0.9,
            tags=[],
            fields=[],
        )
    prompt = body["messages"][0]["content"]
    if prompt.startswith("Classify"):
        return say(json.dumps({"route": "save"}))
    answer = {"category": "admin", "title": "Renew passport", "confidence": 0.9, "tags": []}
    return say(json.dumps(answer))


def _routed(openai: FakeOpenAI) -> bool:
    """Whether the turns were asked as small-model mode asks (a schema, no tools)."""
    bodies = openai.chat_requests()
    return bool(bodies) and all("response_format" in b and "tools" not in b for b in bodies)


def _probes(openai: FakeOpenAI) -> list[dict[str, Any]]:
    return [body for path, body in openai.requests if path == "probe"]


async def test_an_endpoint_that_honours_tools_runs_the_full_tool_loop(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.probe_model()
        told = brain.model_mode()
        replies = await brain.engine.handle(message(THOUGHT))
    assert told == "tools: the endpoint answered with a tool call"
    assert replies[0].text.startswith("Saved to admin/renew-passport.md")
    assert [b["tools"][0]["function"]["name"] for b in openai_fake.chat_requests()]
    (probe,) = _probes(openai_fake)  # asked once, cheaply
    assert probe["max_tokens"] <= 64 and len(probe["tools"]) == 1


async def test_an_endpoint_that_answers_in_words_runs_small_model_mode(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.turn.mode")
    openai_fake.responder = _files_thoughts
    openai_fake.honours_tools = False
    openai_fake.context = 8192  # llama.cpp's /props
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message(THOUGHT))  # probed on the first turn
        told = brain.model_mode()
        written = notes(brain.settings.vault_dir)
    line = (
        "routed: the endpoint answered a request that offered a tool in words ('Sure, I will "
        "remember to buy oat milk.'): its server drops `tools` (llama.cpp without a "
        "tool-capable chat template does) or its model does not call them; its context: 8,192 "
        "tokens"
    )
    assert told == line
    assert f"model mode {line}" in caplog.messages
    assert _routed(openai_fake)
    assert written == ["admin/renew-passport.md"]  # filed, not left in the inbox
    assert "Saved to admin/renew-passport.md" in replies[0].text


async def test_a_context_too_short_for_the_tool_list_runs_small_model_mode(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    openai_fake.context = 2048
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message(THOUGHT))
        told = brain.model_mode()
    assert told.startswith(
        "routed: the endpoint honours `tools`, but its context cannot hold the tool list (~"
    )
    assert told.endswith("; its context: 2,048 tokens")
    assert _routed(openai_fake)


@pytest.mark.parametrize(("spare", "kept"), [(0, False), (4_000, True)])
async def test_the_history_sent_fits_what_the_endpoints_context_leaves(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, spare: int, kept: bool
) -> None:
    """The history a turn sends is what the context leaves beside the tool list, an
    answer and the turn: none when the context holds those alone."""
    settings = make_settings(tmp_path, database_url, openai_fake)
    tools = estimate_tokens(json.dumps(tool_schemas(settings.categories)))
    openai_fake.responder = _files_thoughts
    openai_fake.context = tools + settings.llm_max_tokens + TURN_ROOM + spare
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message(THOUGHT))
        await brain.engine.handle(message("Book the dentist for Friday"))
        assert brain.model_mode().startswith("tools:")
    turns = [
        body["messages"]
        for body in openai_fake.chat_requests()
        if str(body["messages"][0]["content"]).startswith("You are brainbot")
    ]
    said = [[m.get("content") for m in messages if m["role"] == "user"] for messages in turns]
    assert said[1][-1].startswith("Book the dentist for Friday")
    assert (THOUGHT in said[1][0]) is kept and len(said[1]) == (2 if kept else 1)


async def test_a_context_length_the_models_list_gives_is_reported(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    openai_fake.models = [  # as vLLM lists them
        {"id": "another-model", "object": "model", "max_model_len": 4096},
        {"id": "gpt-4o-mini", "object": "model", "max_model_len": 32768},
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message(THOUGHT))
        told = brain.model_mode()
    assert told == "tools: the endpoint answered with a tool call; its context: 32,768 tokens"


async def test_an_endpoint_down_at_start_is_asked_again_when_it_is_back(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    openai_fake.down = True
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.probe_model()
        while_down = brain.model_mode()
        kept = await brain.engine.handle(message("Water the ferns on Sunday"))
        openai_fake.down = False
        filed = await brain.engine.handle(message(THOUGHT))
        told = brain.model_mode()
        written = notes(brain.settings.vault_dir)
    assert while_down.startswith(
        "not known yet: the endpoint did not answer (the model answered 503"
    )
    assert "unreachable" in (kept[0].notice or "")  # kept, as when the model is down
    assert told == "tools: the endpoint answered with a tool call"
    assert filed[0].text.startswith("Saved to admin/renew-passport.md")
    assert written == ["admin/renew-passport.md", "inbox/water-the-ferns-on-sunday.md"]
    assert len(_probes(openai_fake)) == 3  # at start, with the first message, when back


async def test_an_endpoint_back_from_an_outage_as_another_server_is_asked_again(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.probe_model()
        before = brain.model_mode()
        openai_fake.down = True  # llama-server restarted without its tool template
        await brain.engine.handle(message("Water the ferns on Sunday"))
        openai_fake.down, openai_fake.honours_tools = False, False
        await brain.engine.handle(message(THOUGHT))
        after = brain.model_mode()
        written = notes(brain.settings.vault_dir)
    assert before.startswith("tools:") and after.startswith("routed:")
    assert "admin/renew-passport.md" in written
    assert "response_format" in openai_fake.chat_requests()[-1]


async def test_an_endpoint_that_refuses_tools_runs_small_model_mode_and_a_refusal_none(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _files_thoughts
    openai_fake.probe_status = 400  # Ollama: "model does not support tools"
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await brain.engine.handle(message(THOUGHT))
        refused_tools = brain.model_mode()
    openai_fake.probe_status = 404  # a model name the server does not have
    asked = len(openai_fake.chat_requests())
    async with running_brain(tmp_path / "b", database_url, openai_fake) as brain:
        replies = await brain.engine.handle(message("/help"))
        await brain.engine.handle(message("Water the ferns on Sunday"))
        refused = brain.model_mode()
        written = notes(brain.settings.vault_dir)
    assert refused_tools.startswith(
        "routed: the endpoint refused a request that offered a tool (the model answered 400"
    )
    assert refused.startswith("none: the endpoint refused the probe (the model answered 404")
    assert refused.endswith("check OPENAI_API_KEY and BRAINBOT_LLM_MODEL, then restart")
    assert replies  # the command router answers
    assert written == ["admin/water-the-ferns.md"]  # filed by the router's keywords
    assert len(openai_fake.chat_requests()) == asked  # the model is not asked in chat


@pytest.mark.parametrize(
    ("setting", "told"),
    [
        ({"BRAINBOT_LLM_MODE": "routed"}, "routed: BRAINBOT_LLM_MODE=routed"),
        ({"BRAINBOT_LLM_TOOLS": "routed"}, "routed: BRAINBOT_LLM_MODE=routed"),
        (
            {"BRAINBOT_LLM_MODE": "tools", "BRAINBOT_LLM_TOOLS": "routed"},
            "tools: BRAINBOT_LLM_MODE=tools",
        ),
    ],
)
async def test_a_forced_mode_is_not_asked(
    tmp_path: Path,
    database_url: str,
    openai_fake: FakeOpenAI,
    setting: dict[str, str],
    told: str,
) -> None:
    openai_fake.responder = _files_thoughts
    async with running_brain(tmp_path, database_url, openai_fake, **setting) as brain:
        await brain.probe_model()
        await brain.engine.handle(message(THOUGHT))
        said = brain.model_mode()
        (note,) = notes(brain.settings.vault_dir)
    assert said == told
    assert _probes(openai_fake) == []
    assert note == "admin/renew-passport.md"
    assert _routed(openai_fake) == said.startswith("routed")
    assert frontmatter.load(brain.settings.vault_dir / note).content.strip() == THOUGHT


async def test_doctor_says_the_mode_and_why(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.honours_tools = False
    openai_fake.context = 8192
    probed = await doctor_mode(make_settings(tmp_path, database_url, openai_fake))
    forced = await doctor_mode(
        make_settings(tmp_path, database_url, openai_fake, BRAINBOT_LLM_MODE="tools")
    )
    openai_fake.down = True
    down = await doctor_mode(make_settings(tmp_path, database_url, openai_fake))
    assert probed.level == "ok" and probed.topic == "model mode"
    assert probed.detail.startswith("routed: the endpoint answered a request that offered a tool")
    assert probed.detail.endswith("its context: 8,192 tokens")
    assert (forced.level, forced.detail) == ("ok", "tools: BRAINBOT_LLM_MODE=tools")
    assert down.level == "warning"
    assert down.detail.startswith("not known yet: the endpoint did not answer")
