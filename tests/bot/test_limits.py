"""Floods are capped: one model reply cannot write hundreds of notes, and one person
cannot send more messages a minute than the setting allows."""

from __future__ import annotations

from pathlib import Path

from tests.bot.helpers import message, notes, vault_of
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, ToolCall, calls


def _capture(n: int) -> ToolCall:
    return ToolCall(
        "capture",
        {
            "category": "ideas",
            "title": f"Idea number {n}",
            "body": f"Idea number {n}",
            "confidence": 0.9,
            "tags": [],
            "fields": [],
        },
    )


async def test_one_model_reply_with_300_captures_writes_at_most_the_cap(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [calls(*(_capture(n) for n in range(300)))]
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_MAX_TOOL_CALLS=5
    ) as brain:
        replies = await brain.engine.handle(message("file all of these"))
        assert len(notes(brain.settings.vault_dir)) == 5
    assert "295 more were not done" in replies[-1].text


async def test_a_person_over_the_rate_limit_is_told_to_resend(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock()
    async with running_brain(tmp_path, database_url, clock=clock, BRAINBOT_RATE_LIMIT=3) as brain:
        for n in range(3):
            await brain.engine.handle(message(f"idea: kite number {n}"))
        (slow,) = await brain.engine.handle(message("idea: one too many"))
        assert "not saved" in slow.text and "3 a minute" in slow.text
        (other,) = await brain.engine.handle(message("idea: someone else", user="U2"))
        assert "Saved" in other.text
        clock.advance(minutes=1)
        (later,) = await brain.engine.handle(message("idea: one too many"))
        assert "Saved" in later.text
        assert len(notes(brain.settings.vault_dir)) == 4
        assert notes(await vault_of(brain, "test", "U2")) == ["ideas/someone-else.md"]
