"""Related notes at capture through Telegram: the fake Bot API, the real PTB Application,
the real engine. The capture's reply is one message; the related notes follow as a
second with a Link button; Link and then Undo edit that second message."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import frontmatter
import pytest

from tests.adapters.telegram.conftest import make_adapter
from tests.adapters.telegram.test_telegram_engine import TelegramBrain
from tests.bot.helpers import git_log
from tests.fakes.brain import running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

NEW = "ideas/my-sourdough-starter-smells-of-acetone-feed-it-more-rye.md"


@pytest.fixture
async def tg(tmp_path: Path, database_url: str, fake: FakeTelegram) -> AsyncIterator[TelegramBrain]:
    adapter = make_adapter(fake)
    # No model: the router files. Related notes are told through the adapter.
    async with running_brain(tmp_path, database_url, deliver=adapter.send) as brain:
        await adapter.start(brain.engine.handle)
        try:
            yield TelegramBrain(brain, fake, Updates())
        finally:
            await adapter.stop()


async def test_link_and_undo_from_the_related_message(tg: TelegramBrain) -> None:
    for text in (
        "idea: Sourdough starter needs feeding twice a day with rye flour and water",
        "idea: Renew the car insurance before the end of March",
    ):
        await tg.say(tg.updates.message(text))
        await tg.brain.engine.related.wait_idle()

    saved, related = await tg.say(
        tg.updates.message("idea: My sourdough starter smells of acetone, feed it more rye flour"),
        replies=2,
    )

    assert visible_text(saved["text"]) == f"Saved to {NEW} (ideas)."
    assert "reply_markup" not in saved
    assert visible_text(related["text"]).startswith("Related: Sourdough starter needs feeding")
    assert "insurance" not in related["text"]
    (link,) = [b for row in related["reply_markup"]["inline_keyboard"] for b in row]
    assert link["text"] == "Link" and len(link["callback_data"].encode()) <= 64
    message_id = max(m.message_id for m in tg.fake.messages.values())
    commits = len(git_log(tg.vault))

    tg.fake.queue_update(tg.updates.press(link["callback_data"], message_id=message_id))

    (edit,) = await tg.fake.wait_for("editMessageText", within=15)
    assert edit["message_id"] == message_id
    assert visible_text(edit["text"]).startswith("Linked to Sourdough starter needs feeding")
    (undo,) = [b for row in edit["reply_markup"]["inline_keyboard"] for b in row]
    assert undo["text"] == "Undo"
    body = frontmatter.load(tg.vault / NEW).content
    assert (
        body.strip()
        .split("\n")[-1]
        .startswith("Related: [[sourdough-starter-needs-feeding-twice-a-day-with-rye-flour|")
    )
    assert len(git_log(tg.vault)) == commits + 1

    tg.fake.queue_update(tg.updates.press(undo["callback_data"], message_id=message_id))

    edits = await tg.fake.wait_for("editMessageText", 2, within=15)
    assert visible_text(edits[1]["text"]).startswith("Undone: Linked to")
    assert "Related:" not in frontmatter.load(tg.vault / NEW).content
