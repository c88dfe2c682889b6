"""What a Telegram message shares, end to end: fake Bot API → real PTB Application →
real engine (temporary vault, fresh database, no model: the line is filed as said) →
the note in the vault and the answers the fake Bot API got."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import frontmatter
import pytest

from adapters.telegram.app import TelegramAdapter
from app.runtime import Runtime
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.helpers import git_log, notes
from tests.fakes.brain import running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates, photo, text_link

QUIET = 0.3


@pytest.fixture
async def brain(tmp_path: Path, database_url: str) -> AsyncIterator[Runtime]:
    # No model, and no page fetched: the note holds the words as the engine got them.
    async with running_brain(tmp_path, database_url, BRAINBOT_FETCH=False) as runtime:
        yield runtime


@pytest.fixture
async def telegram(brain: Runtime, fake: FakeTelegram) -> AsyncIterator[TelegramAdapter]:
    adapter = make_adapter(fake, album_quiet=QUIET)
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    yield adapter
    await adapter.stop()


def only_note(vault: Path) -> frontmatter.Post:
    (path,) = notes(vault)
    return frontmatter.load(vault / path)


async def test_a_hidden_link_is_filed_with_its_address(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    text = "read this piece on tidy notes 📝"
    entities = [text_link(text, "this piece", "https://x.org/tidy-notes")]
    fake.queue_update(Updates().message(text, entities=entities))

    await fake.wait_for("sendMessage", within=15)

    body = only_note(brain.settings.vault_dir).content
    assert "read this piece (https://x.org/tidy-notes) on tidy notes 📝" in body


async def test_a_three_photo_album_is_one_note_with_three_pictures_and_one_answer(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    for name in ("p1", "p2", "p3"):
        fake.add_file(name, f"\xff\xd8 jpeg {name}".encode())
    items = [{"photo": photo(name)} for name in ("p1", "p2", "p3")]
    for part in Updates().album(items, caption="whiteboard after the planning meeting"):
        fake.queue_update(part)

    await fake.wait_for("sendMessage", within=15)

    vault = brain.settings.vault_dir
    note = only_note(vault)
    assert "whiteboard after the planning meeting" in note.content
    embeds = re.findall(r"!\[\[(attachments/[^\]]+)\]\]", note.content)
    assert [(vault / path).read_bytes() for path in embeds] == [
        f"\xff\xd8 jpeg {name}".encode() for name in ("p1", "p2", "p3")
    ]
    assert len(list((vault / "attachments").iterdir())) == 3
    assert len(fake.calls("sendMessage")) == 1
    # The note and its three photos are one commit.
    log = git_log(vault)
    assert len([line for line in log if line.startswith("create ")]) == 1
    assert not [line for line in log if line.startswith("attach")]


async def test_a_part_of_a_filed_album_delivered_again_after_a_restart_files_nothing(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.add_file("p1", b"jpeg one")
    fake.add_file("p2", b"jpeg two")
    updates = Updates()
    parts = updates.album([{"photo": photo("p1")}, {"photo": photo("p2")}], caption="receipts")
    for part in parts:
        fake.queue_update(part)
    await fake.wait_for("sendMessage", within=15)
    await telegram.stop()

    again = make_adapter(fake, album_quiet=QUIET)  # a new process: it remembers nothing
    await again.start(brain.engine.handle, brain.engine.access.is_allowed)
    try:
        fake.queue_update(parts[1])
        fake.queue_update(updates.message("/list"))
        await fake.wait_for("sendMessage", 2, within=15)
    finally:
        await again.stop()

    assert len(notes(brain.settings.vault_dir)) == 1
    assert len(list((brain.settings.vault_dir / "attachments").iterdir())) == 2
    assert len(fake.calls("sendMessage")) == 2  # the album's answer and /list's


async def test_a_forwarded_pdf_is_kept_with_its_origin(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.add_file("pdf1", b"%PDF-1.7 quarterly report")
    document = {"file_id": "pdf1", "file_unique_id": "u", "file_name": "q3-report.pdf"}
    document["mime_type"] = "application/pdf"
    channel = {"id": -100123, "type": "channel", "title": "Finance", "username": "finance"}
    origin = {"type": "channel", "date": 1_700_000_000, "chat": channel, "message_id": 12}
    caption = "Q3 numbers, see the summary"
    entities = [text_link(caption, "the summary", "https://x.org/q3")]
    update = Updates().message(
        document=document, caption=caption, caption_entities=entities, forward_origin=origin
    )
    fake.queue_update(update)

    await fake.wait_for("sendMessage", within=15)

    vault = brain.settings.vault_dir
    assert (vault / "attachments/q3-report.pdf").read_bytes() == b"%PDF-1.7 quarterly report"
    note = only_note(vault)
    assert "Q3 numbers, see the summary (https://x.org/q3)" in note.content
    assert "![[attachments/q3-report.pdf]]" in note.content
    assert note["source_forwarded_from"] == "Finance"
    assert note["source_forwarded_link"] == "https://t.me/finance/12"
