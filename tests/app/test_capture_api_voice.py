"""A recording sent to the capture API as a file (a Shortcut sharing a voice memo or a
video): saved at once, heard on this machine after the answer, its words in the
note's "## Transcript" and found by search."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import frontmatter
import pytest

from tests.app.test_capture_api import Api, serve
from tests.bot.helpers import git_log
from tests.fakes.brain import running_brain
from tests.fakes.speech import WORDS, needs_speech, video_clip, voice_note

pytestmark = pytest.mark.slow(seconds=3)


@pytest.fixture
async def api(tmp_path: Path, database_url: str) -> AsyncIterator[Api]:
    async with running_brain(tmp_path, database_url, BRAINBOT_RATE_LIMIT="0") as brain:
        async for served in serve(brain):
            yield served


async def upload(api: Api, data: bytes, name: str, mime: str) -> dict[str, str]:
    form = aiohttp.FormData()
    form.add_field("file", data, filename=name, content_type=mime)
    status, body, _ = await api.post(data=form)
    assert status == 201, body
    return body


@needs_speech
async def test_a_voice_memo_and_a_video_are_heard_into_their_notes(api: Api) -> None:
    memo = await upload(api, voice_note(), "memo.ogg", "audio/ogg")
    film = await upload(
        api, video_clip("The garage door code is four seven one nine."), "door.mp4", "video/mp4"
    )
    # The answer came before any hearing: the notes hold only the recordings yet.
    assert "## Transcript" not in (api.vault / memo["path"]).read_text()

    await api.brain.engine.enricher.wait_idle()

    note = frontmatter.load(api.vault / memo["path"])
    assert "![[attachments/memo.ogg]]" in note.content
    transcript = note.content.split("## Transcript", 1)[1]
    assert all(word.lower() in transcript.lower() for word in WORDS), transcript
    assert [h.path for h in (await api.brain.store.search("purple umbrellas")).hits] == [
        memo["path"]
    ]
    assert "garage door" in (api.vault / film["path"]).read_text().lower()
    assert len([line for line in git_log(api.vault) if "memo" in line]) == 2


async def test_without_a_speech_model_the_answer_says_how_to_turn_it_on(
    tmp_path: Path, database_url: str
) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    async with running_brain(
        tmp_path, database_url, BRAINBOT_TRANSCRIBE_MODEL_DIR=str(empty)
    ) as brain:
        async for served in serve(brain):
            body = await upload(served, b"OggS not much of a voice", "memo.ogg", "audio/ogg")
            await brain.engine.enricher.wait_idle()
            kept = (served.vault / "attachments/memo.ogg").read_bytes()
            text = (served.vault / body["path"]).read_text()
    assert kept == b"OggS not much of a voice" and "## Transcript" not in text
    said = str(body)
    assert "kept untranscribed" in said and "make voice" in said, said
    assert "BRAINBOT_TRANSCRIBE_MODEL_DIR" in said
