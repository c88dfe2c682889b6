"""End to end: fake Bot API → real PTB Application → real engine (temporary vault,
fresh database, fake OpenAI) → what the fake Bot API receives and what the vault holds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from app.runtime import Runtime
from storage.entry import Author
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.helpers import git_log, notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call
from tests.fakes.scripts import CAPTURE, UPDATE
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

MALLORY = {"id": 666, "is_bot": False, "first_name": "Mallory"}


@dataclass
class TelegramBrain:
    brain: Runtime
    fake: FakeTelegram
    updates: Updates

    @property
    def vault(self) -> Path:
        return self.brain.settings.vault_dir

    async def say(self, update: dict[str, Any], replies: int = 1) -> list[dict[str, Any]]:
        """Queue an update; return the sendMessage calls once `replies` more have arrived."""
        before = len(self.fake.calls("sendMessage"))
        self.fake.queue_update(update)
        sent = await self.fake.wait_for("sendMessage", before + replies, within=15)
        return sent[before:]


@pytest.fixture
async def tg(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> AsyncIterator[TelegramBrain]:
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        adapter = make_adapter(fake)
        await adapter.start(brain.engine.handle)
        try:
            yield TelegramBrain(brain, fake, Updates())
        finally:
            await adapter.stop()


def source_of(vault: Path, path: str) -> dict[str, object]:
    """The note's flat `source_*` properties, without the prefix."""
    fields = frontmatter.load(vault / path).metadata
    return {k.removeprefix("source_"): v for k, v in fields.items() if k.startswith("source_")}


async def test_text_capture_files_a_note_and_answers(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE]

    (reply,) = await tg.say(tg.updates.message("launch the new website before the conference"))

    assert reply["chat_id"] == 42
    assert "projects/launch-the-website.md" in visible_text(reply["text"])
    assert notes(tg.vault) == ["projects/launch-the-website.md"]
    source = source_of(tg.vault, "projects/launch-the-website.md")
    assert (source["platform"], source["chat_id"], source["message_id"]) == ("telegram", "42", "1")
    assert tg.fake.calls("sendChatAction")[0]["action"] == "typing"


async def test_voice_note_keeps_the_audio_and_captures_the_transcript(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.transcript = "launch the new website before the conference"
    openai_fake.script = [CAPTURE]
    tg.fake.add_file("voice1", b"OggS fake voice")
    voice = {"file_id": "voice1", "file_unique_id": "uv1", "duration": 4, "mime_type": "audio/ogg"}

    await tg.say(tg.updates.message(voice=voice))

    (kept,) = (tg.vault / "attachments").iterdir()
    assert kept.read_bytes() == b"OggS fake voice"
    assert notes(tg.vault) == ["projects/launch-the-website.md"]
    transcribed = [body for kind, body in openai_fake.requests if kind == "transcribe"]
    assert [body["bytes"] for body in transcribed] == [len(b"OggS fake voice")]
    assert "launch the new website" in str(openai_fake.requests[-1][1])  # the model got it
    body = (tg.vault / "projects/launch-the-website.md").read_text()
    assert f"attachments/{kept.name}" in body


async def test_photo_with_caption_keeps_the_picture_and_files_the_caption(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE]
    tg.fake.add_file("thumb", b"small")
    tg.fake.add_file("full", b"\xff\xd8 full jpeg")
    photo = [
        {"file_id": "thumb", "file_unique_id": "t", "width": 90, "height": 90},
        {"file_id": "full", "file_unique_id": "f", "width": 1280, "height": 1280},
    ]
    caption = "whiteboard: launch the new website before the conference"

    await tg.say(tg.updates.message(photo=photo, caption=caption))

    (kept,) = (tg.vault / "attachments").iterdir()
    assert kept.read_bytes() == b"\xff\xd8 full jpeg"
    assert notes(tg.vault) == ["projects/launch-the-website.md"]
    prompt = str(openai_fake.requests[-1][1])
    assert "whiteboard: launch the new website" in prompt


async def test_forwarded_message_records_its_origin_in_the_note(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE]
    bob = {"id": 7, "is_bot": False, "first_name": "Bob", "last_name": "Stone"}
    origin = {"type": "user", "date": 1_700_000_000, "sender_user": bob}

    await tg.say(tg.updates.message("launch the new website", forward_origin=origin))

    source = source_of(tg.vault, "projects/launch-the-website.md")
    assert source["forwarded_from"] == "Bob Stone"
    assert source["platform"] == "telegram"


async def test_the_same_update_delivered_twice_is_one_capture(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE, CAPTURE]
    update = tg.updates.message("launch the new website before the conference")
    update_id = tg.fake.queue_update(update)
    tg.fake.queue_update({**update, "update_id": update_id})
    await tg.fake.wait_for("sendMessage", within=15)

    await tg.say(tg.updates.message("/list"))  # the repeat was handled before this

    assert notes(tg.vault) == ["projects/launch-the-website.md"]
    assert len(openai_fake.script) == 1  # the repeat never reached the model
    assert len(tg.fake.calls("sendMessage")) == 2  # the capture's answer and /list's


async def approval_card(tg: TelegramBrain, openai_fake: FakeOpenAI) -> tuple[int, dict[str, str]]:
    """Ask for a change that needs approval; return the card's message id and its buttons."""
    await tg.brain.store.create(
        "ideas", "Tea", "Try more kinds of tea.", {}, author=Author("Ada", "ada@example.org")
    )
    openai_fake.script = [UPDATE]
    (card,) = await tg.say(tg.updates.message("I tried oolong, it was great"))
    assert "<pre>" in card["text"]
    rows = card["reply_markup"]["inline_keyboard"]
    buttons = {b["text"]: b["callback_data"] for row in rows for b in row}
    assert set(buttons) == {"Approve", "Reject"}
    assert all(len(data.encode()) <= 64 for data in buttons.values())
    message_id = max(m.message_id for m in tg.fake.messages.values())
    return message_id, buttons


async def test_approve_applies_the_change_and_edits_the_card(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    message_id, buttons = await approval_card(tg, openai_fake)

    tg.fake.queue_update(tg.updates.press(buttons["Approve"], message_id=message_id))

    (edit,) = await tg.fake.wait_for("editMessageText", within=15)
    assert edit["message_id"] == message_id
    assert visible_text(edit["text"]).startswith("Approved")
    assert "reply_markup" not in edit
    assert frontmatter.load(tg.vault / "ideas/tea.md")["status"] == "tried"
    assert len(tg.fake.calls("answerCallbackQuery")) == 1


async def test_reject_changes_nothing_and_edits_the_card(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    message_id, buttons = await approval_card(tg, openai_fake)
    before = (tg.vault / "ideas/tea.md").read_text()

    tg.fake.queue_update(tg.updates.press(buttons["Reject"], message_id=message_id))

    (edit,) = await tg.fake.wait_for("editMessageText", within=15)
    assert visible_text(edit["text"]).startswith("Rejected")
    assert (tg.vault / "ideas/tea.md").read_text() == before


async def test_a_small_change_runs_at_once_and_its_undo_button_edits_the_message(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    await tg.brain.store.create(
        "ideas", "Tea", "Try more kinds of tea.", {}, author=Author("Ada", "ada@example.org")
    )
    before = (tg.vault / "ideas/tea.md").read_text()
    openai_fake.script = [
        call(
            "update_entry",
            path="ideas/tea.md",
            set_fields=None,
            remove_fields=None,
            body=None,
            append="Tried oolong: great.",
        )
    ]
    (sent,) = await tg.say(tg.updates.message("I tried oolong, it was great"))
    assert visible_text(sent["text"]) == 'Updated ideas/tea.md: added "Tried oolong: great.".'
    (undo,) = [b for row in sent["reply_markup"]["inline_keyboard"] for b in row]
    assert undo["text"] == "Undo" and len(undo["callback_data"].encode()) <= 64
    assert "Tried oolong" in (tg.vault / "ideas/tea.md").read_text()
    message_id = max(m.message_id for m in tg.fake.messages.values())

    tg.fake.queue_update(tg.updates.press(undo["callback_data"], message_id=message_id))

    (edit,) = await tg.fake.wait_for("editMessageText", within=15)
    assert edit["message_id"] == message_id and "reply_markup" not in edit
    assert visible_text(edit["text"]).startswith("Undone: Updated ideas/tea.md")
    assert (tg.vault / "ideas/tea.md").read_text() == before


async def test_someone_else_pressing_approve_changes_nothing(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    message_id, buttons = await approval_card(tg, openai_fake)
    before = (tg.vault / "ideas/tea.md").read_text()

    (answer,) = await tg.say(
        tg.updates.press(buttons["Approve"], message_id=message_id, user=MALLORY)
    )

    assert "Only the person who asked" in answer["text"]
    assert tg.fake.calls("editMessageText") == []
    assert tg.fake.messages[42, message_id].reply_markup is not None  # still decidable
    assert (tg.vault / "ideas/tea.md").read_text() == before
    assert len(tg.fake.calls("answerCallbackQuery")) == 1


async def test_a_double_press_applies_the_change_once(
    tg: TelegramBrain, openai_fake: FakeOpenAI
) -> None:
    message_id, buttons = await approval_card(tg, openai_fake)

    tg.fake.queue_update(tg.updates.press(buttons["Approve"], message_id=message_id))
    tg.fake.queue_update(tg.updates.press(buttons["Approve"], message_id=message_id))
    await tg.fake.wait_for("answerCallbackQuery", 2)
    await tg.fake.wait_for("editMessageText", within=15)
    await tg.say(tg.updates.message("/list"))  # both presses are handled by now

    assert len(tg.fake.calls("editMessageText")) == 1
    assert len([m for m in git_log(tg.vault) if "tea.md" in m]) == 2  # created, updated once
    assert frontmatter.load(tg.vault / "ideas/tea.md")["status"] == "tried"


async def test_a_strangers_file_is_never_downloaded(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> None:
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_ALLOWED_USERS="telegram:42"
    ) as brain:
        adapter = make_adapter(fake)
        await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
        try:
            fake.add_file("big", b"OggS twenty megabytes, a stranger's")
            voice = {"file_id": "big", "file_unique_id": "u", "duration": 4}
            fake.queue_update(Updates().message(voice=voice, user=MALLORY))
            (refusal,) = await fake.wait_for("sendMessage", within=15)
        finally:
            await adapter.stop()
    assert refusal["text"].startswith("Sorry")
    assert fake.calls("getFile") == []
    assert [kind for kind, _ in openai_fake.requests if kind == "transcribe"] == []
    assert not (brain.settings.vault_dir / "attachments").exists() or not any(
        (brain.settings.vault_dir / "attachments").iterdir()
    )


async def test_a_file_over_the_attachment_setting_is_not_downloaded(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> None:
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_MAX_ATTACHMENT_BYTES=1000
    ) as brain:
        adapter = make_adapter(fake, max_file_bytes=brain.settings.max_attachment_bytes)
        await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
        try:
            fake.add_file("long", b"x" * 5000)
            voice = {"file_id": "long", "file_unique_id": "u", "duration": 40, "file_size": 5000}
            fake.queue_update(Updates().message(voice=voice))
            (answer,) = await fake.wait_for("sendMessage", within=15)
        finally:
            await adapter.stop()
    assert "too big" in answer["text"] and "1 kB" in answer["text"]
    assert fake.calls("getFile") == []
    assert notes(brain.settings.vault_dir) == []
