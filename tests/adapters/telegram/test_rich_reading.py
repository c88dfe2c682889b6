"""What a Telegram message shares is read after the reply, end to end: fake Bot API →
real PTB Application → real engine → the page or the photos' text in the note, and
a second message in the chat saying what was added (or why not)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import frontmatter
import pytest

from adapters.telegram.app import TelegramAdapter
from app.runtime import Runtime
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.enrich.pages_server import page_server
from tests.bot.enrich.test_shared_files import photo_of
from tests.bot.helpers import notes
from tests.fakes.brain import running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates, photo, text_link
from tests.fakes.text_pictures import needs_ocr


@pytest.fixture
async def site() -> AsyncIterator[str]:
    async with page_server() as base:
        yield base


@pytest.fixture
def adapter(fake: FakeTelegram) -> TelegramAdapter:
    return make_adapter(fake, album_quiet=0.5)


@pytest.fixture
async def brain(
    tmp_path: Path, database_url: str, adapter: TelegramAdapter
) -> AsyncIterator[Runtime]:
    # What is read after a reply is told through the adapter, as `brainbot run` wires it.
    async with running_brain(
        tmp_path, database_url, BRAINBOT_FETCH_ALLOW_PRIVATE=True, deliver=adapter.send
    ) as runtime:
        yield runtime


@pytest.fixture
async def telegram(brain: Runtime, adapter: TelegramAdapter) -> AsyncIterator[TelegramAdapter]:
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    yield adapter
    await adapter.stop()


async def test_a_hidden_link_s_page_lands_in_the_note_and_the_chat_hears_of_it(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram, site: str
) -> None:
    text = "this guide for the balcony"
    fake.queue_update(
        Updates().message(text, entities=[text_link(text, "guide", f"{site}/compost")])
    )

    saved, added = await fake.wait_for("sendMessage", 2, within=30)

    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    note = frontmatter.load(vault / path)
    assert note.content.startswith(f"this guide ({site}/compost) for the balcony")
    assert "## From the page: Composting in small gardens" in note.content
    assert note["url"] == f"{site}/compost" and note["author"] == "Mara Lindqvist"
    assert path in saved["text"]
    assert "Composting in small gardens" in added["text"]


@needs_ocr
async def test_an_album_s_three_photos_are_read_into_its_one_note(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    boards = {
        "p1": ["ROADMAP", "ship search"],
        "p2": ["BUDGET", "travel costs"],
        "p3": ["HIRING", "designer role"],
    }
    for name, lines in boards.items():
        fake.add_file(name, photo_of(lines))
    items = [{"photo": photo(name)} for name in boards]
    for part in Updates().album(items, caption="planning boards"):
        fake.queue_update(part)

    saved, added = await fake.wait_for("sendMessage", 2, within=60)

    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    body = (vault / path).read_text()
    assert body.count("## Text in the image (") == 3
    embeds = re.findall(r"!\[\[attachments/([^\]]+)\]\]", body)
    assert len(embeds) == 3 and all(f"## Text in the image ({name})" in body for name in embeds)
    for word in ("roadmap", "travel", "designer"):
        hits = (await brain.store.search(word)).hits
        assert [h.path for h in hits] == [path], word
    assert path in saved["text"] and "the text in" in added["text"]
