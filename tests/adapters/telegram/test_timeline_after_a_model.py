"""Issue 40 item 9, as it was met: a thought filed by a model over Telegram, naming a
person with a page, gets the line on that person's timeline and is told so, as the
same words filed without a model in the console are. The fake Bot API, the real PTB
Application, the real engine, a scripted model."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from tests.adapters.telegram.conftest import make_adapter
from tests.adapters.telegram.test_telegram_engine import TelegramBrain
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

WORDS = "Lunch with Sarah Kim about the Q3 marketing budget"


async def test_a_model_filed_telegram_capture_gets_its_timeline_line(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="projects",
            title="Q3 marketing budget",
            body=WORDS,
            confidence=0.9,
            tags=[],
            fields=[],
        )
    ]
    adapter = make_adapter(fake)
    async with running_brain(tmp_path, database_url, openai_fake, deliver=adapter.send) as brain:
        await adapter.start(brain.engine.handle)
        try:
            tg = TelegramBrain(brain, fake, Updates())
            await brain.store.create("people", "Sarah Kim", "Works on marketing.")
            saved, told = await tg.say(tg.updates.message(WORDS), replies=2)
            await brain.engine.after.wait_idle()
        finally:
            await adapter.stop()
        page = frontmatter.load(tg.vault / "people/Sarah Kim.md").content
    assert visible_text(saved["text"]) == "Saved to projects/q3-marketing-budget.md (projects)."
    assert visible_text(told["text"]) == "Added to the timeline of Sarah Kim."
    assert "## Timeline\n- 2026-11-20 [[q3-marketing-budget|Q3 marketing budget]]" in page
