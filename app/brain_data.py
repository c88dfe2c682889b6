"""Whether the data folder holds a brain. Only `brainbot run`, `chat` and `import` make
one (and say where); every other command run where there is none says so and names
the folder, instead of leaving a new empty brain wherever it was typed."""

from __future__ import annotations

import sys
from typing import TextIO

from app.settings_check import load_settings
from bot.config import Settings

DATA_SETTING = "BRAINBOT_DATA_DIR"


class NoBrainData(Exception):
    """A command that reads a brain was run where the settings point at none."""


def exists(settings: Settings) -> bool:
    """The owner's notes folder is there, or the embedded database's."""
    if settings.vault_dir.is_dir():
        return True
    return settings.database_url is None and (settings.data_dir / "pg").is_dir()


def where(settings: Settings) -> str:
    """The data folder as a person finds it again: absolute, with its setting."""
    said = f"{settings.data_dir.resolve()} ({DATA_SETTING})"
    if settings.vault_dir != settings.data_dir / "vault":
        said += f", notes in {settings.vault_dir.resolve()} (BRAINBOT_VAULT_DIR)"
    return said


def require(settings: Settings) -> None:
    """NoBrainData, saying where brainbot looked and what to do, unless there is a brain."""
    if not exists(settings):
        raise NoBrainData(
            f"there is no brainbot data in {where(settings)}. Run this where your brain is, "
            f"or set {DATA_SETTING} to its folder; `brainbot run`, `brainbot chat` or "
            "`brainbot import` starts a new one."
        )


def brain_settings() -> Settings:
    """The settings, for a command that reads a brain: NoBrainData where there is none."""
    settings = load_settings()
    require(settings)
    return settings


def announce_new(settings: Settings, out: TextIO | None = None) -> None:
    """Say where a new brain is made (on `out`, else stderr), when there is none yet
    (run, chat, import)."""
    if not exists(settings):
        said = f"brainbot: making a new brain in {where(settings)}"
        print(said, file=out or sys.stderr, flush=True)
