"""Speech for the voice tests: a sentence spoken by espeak-ng (a system package) and
encoded as Telegram sends a voice note (OGG/Opus, mono, 48 kHz) or as a phone films a
video (MP4: a small picture and the sound in AAC), with PyAV; and the skip marker for
tests that need espeak-ng, faster-whisper and the packaged model (`make test` installs
them)."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import wave
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from bot.readers import missing, packaged_model

SENTENCE = "Remember to buy purple umbrellas for Natalie on Thursday."
WORDS = ("purple", "umbrellas", "Natalie", "Thursday")

_lacking = (
    "espeak-ng is not installed (`make test` installs it as root on Debian)"
    if shutil.which("espeak-ng") is None
    else missing(packaged_model())
)
needs_speech = pytest.mark.skipif(
    _lacking is not None, reason=f"voice tests skipped: {_lacking} (`make test`, `make voice`)"
)


def spoken_wav(sentence: str = SENTENCE, *, pause_seconds: float = 0) -> bytes:
    """The sentence as a WAV file, in a clear American voice at a calm pace (and with
    `pause_seconds` of silence after it, to make a longer clip)."""
    with tempfile.TemporaryDirectory(prefix="brainbot-speech-") as folder:
        path = Path(folder) / "said.wav"
        subprocess.run(
            ["espeak-ng", "-v", "en-us", "-s", "140", "-w", str(path), sentence],
            capture_output=True,
            check=True,
            timeout=60,
        )
        with wave.open(str(path), "rb") as said:
            params, frames = said.getparams(), said.readframes(said.getnframes())
    silence = b"\0" * (int(params.framerate * pause_seconds) * params.sampwidth * params.nchannels)
    out = io.BytesIO()
    with wave.open(out, "wb") as padded:
        padded.setparams(params)
        padded.writeframes(frames + silence)
    return out.getvalue()


def _encode(wav: bytes, container: str, codec: str, rate: int, *, video: bool = False) -> bytes:
    out = io.BytesIO()
    with av.open(io.BytesIO(wav), mode="r") as src, av.open(out, mode="w", format=container) as dst:
        sound = dst.add_stream(codec, rate=rate, layout="mono")
        picture = None
        if video:
            picture = dst.add_stream("mpeg4", rate=5)
            picture.width, picture.height, picture.pix_fmt = 64, 64, "yuv420p"
        resampler = av.AudioResampler(format=sound.format.name, layout="mono", rate=rate)
        seconds = 0.0
        for frame in [*src.decode(audio=0), None]:
            for out_frame in resampler.resample(frame):
                seconds += out_frame.samples / rate
                for packet in sound.encode(out_frame):
                    dst.mux(packet)
        for packet in sound.encode(None):
            dst.mux(packet)
        if picture is not None:
            for index in range(int(seconds * 5) + 1):
                image = av.VideoFrame.from_ndarray(
                    np.full((64, 64, 3), index * 7 % 255, dtype=np.uint8), format="rgb24"
                )
                image.pts, image.time_base = index, Fraction(1, 5)
                for packet in picture.encode(image):
                    dst.mux(packet)
            for packet in picture.encode(None):
                dst.mux(packet)
    return out.getvalue()


def voice_note(sentence: str = SENTENCE, *, pause_seconds: float = 0) -> bytes:
    """The sentence as Telegram sends a voice note: OGG/Opus."""
    return _encode(spoken_wav(sentence, pause_seconds=pause_seconds), "ogg", "libopus", 48000)


def video_clip(sentence: str = SENTENCE) -> bytes:
    """The sentence as the sound of a short MP4 video."""
    return _encode(spoken_wav(sentence), "mp4", "aac", 44100, video=True)
