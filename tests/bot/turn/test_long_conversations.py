"""Long conversations summarised: when a chat's history passes BRAINBOT_HISTORY_TOKENS,
its older turns are folded by the model (no tools offered) into a summary kept in
Postgres, which goes into the context ahead of the recent turns; a summary is made from
one person's turns of one conversation only; without a summary the history is trimmed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bot.events import Conversation
from bot.turn.older_turns import SUMMARY_PROMPT
from tests.bot.helpers import message
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, say
from tests.fakes.scripts import capture_everything

FACT = "please remember my locker code is 4711"
OTHER_CHAT = Conversation("test", "chat-2")
# A small history budget, and no rate limit for a person who talks fast.
LONG_CHAT = {"BRAINBOT_HISTORY_TOKENS": 1000, "BRAINBOT_RATE_LIMIT": 1000}


def _summariser(body: dict[str, Any]) -> Step:
    """A model that answers a summary request by keeping the summary so far and every
    line where the person asked to remember something, and files every thought."""
    system = body["messages"][0]["content"]
    if system != SUMMARY_PROMPT:
        return capture_everything(body)
    assert "tools" not in body  # summarised as page summaries are: no tools offered
    material = body["messages"][1]["content"]
    previous = re.search(r"<summary>\n(.*?)\n</summary>", material, re.S)
    turns = re.search(r"<turns>\n(.*?)\n</turns>", material, re.S)
    assert previous is not None and turns is not None
    kept = [
        line.removeprefix("user: ")
        for line in turns.group(1).splitlines()
        if line.startswith("user: ") and "remember" in line
    ]
    so_far = "" if previous.group(1) == "(none yet)" else previous.group(1)
    return say(" ".join(filter(None, [so_far, *kept])) or "Small talk only.")


def _turn_requests(openai: FakeOpenAI) -> list[dict[str, Any]]:
    return [b for b in openai.chat_requests() if b["messages"][0]["content"] != SUMMARY_PROMPT]


def _history_of(body: dict[str, Any]) -> str:
    """What the request carries besides its system prompt and the new message."""
    return " ".join(str(m.get("content") or "") for m in body["messages"][1:-1])


def _carried(body: dict[str, Any]) -> str:
    """What the request carries from earlier turns: the system prompt (with the summary)
    and the history (the new message's context line lists the newest notes instead)."""
    return f"{body['messages'][0]['content']} {_history_of(body)}"


async def _summaries(brain: Any) -> list[tuple[str, str]]:
    async with brain.database.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT s.conversation_key, s.summary FROM conversation_summaries s"
                " ORDER BY s.conversation_key, s.user_id"
            )
        )
        return [(row[0], row[1]) for row in rows]


async def test_a_fact_from_turn_3_is_in_the_context_at_turn_40_through_the_summary(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _summariser
    async with running_brain(tmp_path, database_url, openai_fake, **LONG_CHAT) as brain:
        agent = brain.engine.agent
        assert agent is not None
        for n in range(1, 41):
            said = FACT if n == 3 else f"on day {n} I watered the ferns"
            await brain.engine.handle(message(said))
            await agent.summaries.idle()  # summarised after the reply, before the next
        last = _turn_requests(openai_fake)[-1]
        stored = await _summaries(brain)
    assert last["messages"][-1]["content"].startswith("on day 40 I watered the ferns")
    # Turn 3 left the recent turns long ago; it reaches the model through the summary.
    assert "4711" not in _history_of(last)
    assert FACT in last["messages"][0]["content"]
    assert stored == [("test:chat-1:", FACT)]
    summarising = [b for b in openai_fake.chat_requests() if b not in _turn_requests(openai_fake)]
    # Folded in halves of the budget, not once per message.
    assert 1 < len(summarising) < 20


async def test_without_a_summary_the_older_turns_are_trimmed_as_before(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = lambda body: (
        Step(status=503)
        if body["messages"][0]["content"] == SUMMARY_PROMPT
        else capture_everything(body)
    )
    async with running_brain(tmp_path, database_url, openai_fake, **LONG_CHAT) as brain:
        agent = brain.engine.agent
        assert agent is not None
        for n in range(1, 16):
            said = FACT if n == 3 else f"on day {n} I watered the ferns"
            await brain.engine.handle(message(said))
            await agent.summaries.idle()
        last = _turn_requests(openai_fake)[-1]
        stored = await _summaries(brain)
    assert stored == []
    assert "4711" not in _carried(last)  # dropped, as before summaries
    assert "day 14" in _history_of(last)  # the recent turns are still sent


async def test_a_summary_is_never_made_from_another_persons_or_another_chats_turns(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.responder = _summariser
    async with running_brain(tmp_path, database_url, openai_fake, **LONG_CHAT) as brain:
        agent = brain.engine.agent
        assert agent is not None
        for n in range(1, 25):  # Ada, in chat-1: her locker code at turn 3
            said = FACT if n == 3 else f"on day {n} I watered the ferns"
            await brain.engine.handle(message(said))
            await agent.summaries.idle()
        # Bob, in the same chat, and Ada in another chat, talk long enough to be summarised.
        for n in range(1, 25):
            bob = "please remember the bike shed key is blue" if n == 2 else f"bob saw {n} swallows"
            await brain.engine.handle(message(bob, user="U2"))
            await brain.engine.handle(message(f"ada elsewhere saw {n} owls", chat=OTHER_CHAT))
            await agent.summaries.idle()
        turns = _turn_requests(openai_fake)
        stored = await _summaries(brain)
    bob_last = next(
        b for b in reversed(turns) if "bob saw 24 swallows" in b["messages"][-1]["content"]
    )
    ada_elsewhere = turns[-1]
    assert "ada elsewhere saw 24 owls" in ada_elsewhere["messages"][-1]["content"]
    for body in (bob_last, ada_elsewhere):
        assert "4711" not in _carried(body)
    assert "bike shed key is blue" in bob_last["messages"][0]["content"]
    by_chat: dict[str, list[str]] = {}
    for key, summary in stored:
        by_chat.setdefault(key, []).append(summary)
    assert by_chat["test:chat-1:"] == [FACT, "please remember the bike shed key is blue"]
    assert by_chat["test:chat-2:"] == ["Small talk only."]


async def test_a_model_that_gives_no_summary_is_not_asked_again_after_every_reply(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    # It answers the summary request with a tool call, as a small local model may: no text.
    openai_fake.responder = capture_everything
    clock = Clock()
    async with running_brain(tmp_path, database_url, openai_fake, clock, **LONG_CHAT) as brain:
        agent = brain.engine.agent
        assert agent is not None

        async def talk(first: int, last: int) -> int:
            before = len(openai_fake.chat_requests())
            for n in range(first, last):
                await brain.engine.handle(message(f"on day {n} I watered the ferns"))
                await agent.summaries.idle()
            turns = last - first
            return len(openai_fake.chat_requests()) - before - turns  # summary requests

        asked_while_short = await talk(1, 4)
        asked_once_long = await talk(4, 30)
        clock.advance(minutes=11)
        asked_after_a_while = await talk(30, 32)
        stored = await _summaries(brain)
    assert asked_while_short == 0
    assert asked_once_long == 1  # then the history is trimmed, as without a model
    assert asked_after_a_while == 1
    assert stored == []
