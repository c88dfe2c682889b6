"""`/save` in reply to a message in a group, end to end: fake Bot API → real PTB
Application → real engine (no model: a save is filed as said) → the note in the vault
of the person who replied and what the group was told; and the corners of reading it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import frontmatter
import pytest
from telegram import Update

from adapters.telegram.app import TelegramAdapter
from adapters.telegram.save import ALREADY_SAVED, USAGE, translate_update
from adapters.telegram.translate import Incoming, Skip
from app.runtime import Runtime
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.helpers import notes_by_vault, vault_of
from tests.fakes.brain import running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates, photo

GROUP = {"id": -1001234567890, "type": "supergroup", "title": "Book club"}
BOB = {"id": 7, "is_bot": False, "first_name": "Bob", "last_name": "Stone"}
BOT_ID, BOT_NAME = 123456, "brainbot_test_bot"


@pytest.fixture
async def brain(tmp_path: Path, database_url: str) -> AsyncIterator[Runtime]:
    async with running_brain(
        tmp_path, database_url, BRAINBOT_FETCH=False, BRAINBOT_ALLOWED_USERS="telegram:42"
    ) as runtime:
        yield runtime


@pytest.fixture
async def telegram(brain: Runtime, fake: FakeTelegram) -> AsyncIterator[TelegramAdapter]:
    adapter = make_adapter(fake)
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    yield adapter
    await adapter.stop()


def bobs_photo(updates: Updates) -> dict[str, Any]:
    caption = "the cover for our next book: launch the reading project in May"
    return updates.message(chat=GROUP, user=BOB, photo=photo("cover"), caption=caption)["message"]


async def test_save_in_reply_to_a_photo_keeps_it_once_for_the_person_who_replied(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.add_file("cover", b"\xff\xd8 cover jpeg")
    updates = Updates()
    original = bobs_photo(updates)
    first = updates.message("/save", chat=GROUP, reply_to_message=original)
    again = updates.message(f"/save@{fake.username}", chat=GROUP, reply_to_message=original)

    fake.queue_update(first)
    (told,) = await fake.wait_for("sendMessage", within=15)
    fake.queue_update(again)
    (_, told_again) = await fake.wait_for("sendMessage", 2, within=15)

    vault = await vault_of(brain, "telegram", "42")
    (path,) = [p for found in notes_by_vault(brain.settings.data_dir).values() for p in found]
    note = frontmatter.load(vault / path)
    assert "the cover for our next book: launch the reading project in May" in note.content
    (embed,) = re.findall(r"!\[\[(attachments/[^\]]+)\]\]", note.content)
    assert (vault / embed).read_bytes() == b"\xff\xd8 cover jpeg"
    assert note["source_saved_author"] == "Bob Stone"
    assert note["source_saved_from"] == "Book club"
    assert note["source_permalink"] == f"https://t.me/c/1234567890/{original['message_id']}"
    assert told["chat_id"] == GROUP["id"]
    assert told["reply_parameters"]["message_id"] == first["message"]["message_id"]
    assert path in visible_text(told["text"])
    assert visible_text(told_again["text"]) == ALREADY_SAVED


async def test_save_without_a_reply_says_how_and_keeps_nothing(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.queue_update(Updates().message("/save", chat=GROUP))

    (told,) = await fake.wait_for("sendMessage", within=15)

    assert visible_text(told["text"]) == USAGE
    assert all(found == [] for found in notes_by_vault(brain.settings.data_dir).values())
    assert fake.calls("getFile") == []


async def test_a_save_by_someone_not_allowed_reads_and_keeps_nothing(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.add_file("cover", b"\xff\xd8 cover jpeg")
    mallory = {"id": 666, "is_bot": False, "first_name": "Mallory"}
    updates = Updates()
    fake.queue_update(
        updates.message("/save", chat=GROUP, user=mallory, reply_to_message=bobs_photo(updates))
    )

    (told,) = await fake.wait_for("sendMessage", within=15)

    assert visible_text(told["text"]).startswith("Sorry, I only work for")
    assert fake.calls("getFile") == []
    assert all(found == [] for found in notes_by_vault(brain.settings.data_dir).values())


def translated(update: dict[str, Any]) -> Incoming | Skip:
    result = translate_update(Update.de_json({"update_id": 1, **update}, None), BOT_NAME, BOT_ID)
    assert isinstance(result, Incoming | Skip)
    return result


def test_a_public_group_s_message_links_by_the_group_s_name() -> None:
    updates = Updates()
    public = {"id": -1009, "type": "supergroup", "title": "Gardeners", "username": "gardeners"}
    original = updates.message("compost the leaves", chat=public, user=BOB)["message"]
    result = translated(updates.message("/save", chat=public, reply_to_message=original))
    assert isinstance(result, Incoming)
    assert result.event.text == "/capture compost the leaves"
    assert result.event.source["permalink"] == f"https://t.me/gardeners/{original['message_id']}"
    assert result.event.event_id == f"save:-1009:{original['message_id']}:42"


def test_a_save_for_another_bot_or_of_a_topic_s_start_is_not_a_save() -> None:
    updates = Updates()
    original = updates.message("compost the leaves", chat=GROUP, user=BOB)["message"]
    other = translated(updates.message("/save@otherbot", chat=GROUP, reply_to_message=original))
    assert isinstance(other, Skip) and other.answer is None
    topic = updates.message(
        chat=GROUP, user=BOB, forum_topic_created={"name": "x", "icon_color": 1}
    )
    in_topic = translated(
        updates.message(
            "/save", chat=GROUP, reply_to_message=topic["message"], is_topic_message=True
        )
    )
    assert isinstance(in_topic, Skip) and in_topic.answer == USAGE
