"""A voice note heard on this machine, end to end: a sentence spoken by espeak-ng and
encoded as Telegram sends voice (OGG/Opus) → fake Bot API → real PTB Application →
real engine with no model endpoint (BRAINBOT_TRANSCRIBE chosen by itself: local) →
the note saved at once, its "## Transcript" a second commit, found by /search."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import frontmatter
import pytest

from adapters.telegram.app import TelegramAdapter
from app.runtime import Runtime
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.helpers import git_log, notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.speech import WORDS, needs_speech, video_clip, voice_note
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_html import visible_text
from tests.fakes.telegram_updates import Updates

pytestmark = pytest.mark.slow(seconds=3)


@pytest.fixture
def adapter(fake: FakeTelegram) -> TelegramAdapter:
    return make_adapter(fake)


@pytest.fixture
async def brain(
    tmp_path: Path, database_url: str, adapter: TelegramAdapter
) -> AsyncIterator[Runtime]:
    async with running_brain(tmp_path, database_url, deliver=adapter.send) as runtime:
        yield runtime


@pytest.fixture
async def telegram(brain: Runtime, adapter: TelegramAdapter) -> AsyncIterator[TelegramAdapter]:
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    yield adapter
    await adapter.stop()


@needs_speech
async def test_a_voice_note_is_saved_then_its_words_land_in_the_note_and_search_finds_them(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    audio = voice_note()
    fake.add_file("voice1", audio)
    voice = {"file_id": "voice1", "file_unique_id": "uv1", "duration": 4, "mime_type": "audio/ogg"}
    updates = Updates()
    fake.queue_update(updates.message(voice=voice))

    saved, added = await fake.wait_for("sendMessage", 2, within=90)

    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    assert path in visible_text(saved["text"])
    (kept,) = (vault / "attachments").iterdir()
    assert kept.read_bytes() == audio
    note = frontmatter.load(vault / path)
    assert f"![[attachments/{kept.name}]]" in note.content
    transcript = note.content.split("## Transcript", 1)[1]
    for word in WORDS:
        assert word.lower() in transcript.lower(), (word, transcript)
    assert note["title"] == "Remember to buy purple umbrellas for Natalie on Thursday"
    assert "the words of" in added["text"] and "Undo" in str(added.get("reply_markup"))
    # Saved first, heard after: the transcript is a commit of its own on the same note.
    touching = [line for line in git_log(vault) if path.rsplit("/", 1)[-1] in line]
    assert len(touching) == 2, git_log(vault)

    fake.queue_update(updates.message("/search purple umbrellas Natalie"))
    (found,) = (await fake.wait_for("sendMessage", 3, within=30))[2:]
    assert path in visible_text(found["text"]) or note["title"] in visible_text(found["text"])
    hits = (await brain.store.search("umbrellas Natalie")).hits
    assert [hit.path for hit in hits] == [path]


@needs_speech
async def test_a_round_video_note_s_sound_is_heard_into_its_note(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    fake.add_file("round1", video_clip("The garage door code is four seven one nine."))
    video_note = {"file_id": "round1", "file_unique_id": "ur1", "length": 64, "duration": 4}
    fake.queue_update(Updates().message(video_note=video_note))

    _, added = await fake.wait_for("sendMessage", 2, within=90)

    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    (kept,) = (vault / "attachments").iterdir()
    assert kept.suffix == ".mp4"
    assert "garage door" in (vault / path).read_text().split("## Transcript", 1)[1].lower()
    assert "the words of" in added["text"]


@needs_speech
async def test_with_a_model_endpoint_local_hearing_is_chosen_by_the_setting(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake: FakeTelegram
) -> None:
    adapter = make_adapter(fake)
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_TRANSCRIBE="local", deliver=adapter.send
    ) as brain:
        await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
        try:
            fake.add_file("voice1", voice_note())
            voice = {"file_id": "voice1", "file_unique_id": "u1", "duration": 4}
            fake.queue_update(Updates().message(voice=voice))
            await fake.wait_for("sendMessage", 2, within=90)
        finally:
            await adapter.stop()
        (path,) = notes(brain.settings.vault_dir)
        text = (brain.settings.vault_dir / path).read_text()
    assert "purple umbrellas" in text.split("## Transcript", 1)[1].lower()
    assert [kind for kind, _ in openai_fake.requests if kind == "transcribe"] == []
