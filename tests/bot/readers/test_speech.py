"""Local transcription's reader (bot.readers.speech) through the reader process the bot
runs it in: what it hears, and its bounds (time, memory, what is not audio), each one
clip's failure alone."""

from __future__ import annotations

import pytest

from bot.readers import ReaderPool, Unreadable, packaged_model
from tests.fakes.speech import WORDS, needs_speech, video_clip, voice_note

pytestmark = [needs_speech, pytest.mark.slow(seconds=3)]


def speech_pool(**limits: float) -> ReaderPool:
    memory = int(limits.get("memory_mb", 2048)) << 20
    seconds = limits.get("seconds", 120)
    return ReaderPool(
        memory_bytes=memory, seconds=seconds, processes=1, recycle_bytes=memory // 2, nice=10
    )


async def hear(pool: ReaderPool, data: bytes) -> str:
    return (await pool.speech(data, str(packaged_model()), None, max_seconds=3600)).text


async def test_a_voice_note_and_a_video_s_sound_are_heard_by_one_kept_process() -> None:
    pool = speech_pool()
    try:
        said = await hear(pool, voice_note())
        (first,) = pool.pids
        filmed = await hear(pool, video_clip("The garage door code is four seven one nine."))
        assert pool.pids == [first]  # the model stays loaded for the next clip
    finally:
        await pool.close()
    assert all(word.lower() in said.lower() for word in WORDS), said
    assert "garage door" in filmed.lower(), filmed


async def test_what_is_not_audio_and_a_clip_past_its_time_fail_alone() -> None:
    pool = speech_pool(seconds=1)
    try:
        with pytest.raises(Unreadable, match="not audio I can decode"):
            await hear(pool, b"OggS but not really")
        with pytest.raises(Unreadable, match="took too long"):
            await hear(pool, voice_note(pause_seconds=60))
        assert pool.pids == []  # killed with its work
    finally:
        await pool.close()


async def test_a_process_past_its_memory_fails_the_clip_not_the_bot() -> None:
    pool = speech_pool(memory_mb=300)
    try:
        with pytest.raises(Unreadable, match="too large to read"):
            await hear(pool, voice_note())
    finally:
        await pool.close()
