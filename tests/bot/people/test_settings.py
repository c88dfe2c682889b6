"""Settings that would quietly weaken the bot stop the start with what to write instead."""

from __future__ import annotations

import subprocess
import sys
from datetime import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import Settings
from bot.tools import REGISTRY
from bot.tools.runner import approval_tools
from tests.production.process import ROOT, clean_env


def test_unset_every_tool_that_asks_for_approval_and_shows_a_preview_waits() -> None:
    waiting = {n for n, spec in REGISTRY.items() if spec.needs_approval and spec.previewer}
    assert set(approval_tools(Settings(_env_file=None).approval_tools, REGISTRY)) == waiting
    assert waiting == {
        "update_entry",
        "tick_tasks",
        "move_entry",
        "rename_entry",
        "delete_entry",
        "undo",
        "search_replace",
    }


def test_command_words_name_their_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAINBOT_APPROVAL_TOOLS", "delete, Update,move,undo")
    # Ticking a task is an update: it waits wherever updates do.
    assert approval_tools(Settings().approval_tools, REGISTRY) == (
        "delete_entry",
        "update_entry",
        "move_entry",
        "undo",
        "tick_tasks",
    )


def test_unknown_approval_tools_are_refused_with_the_valid_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BRAINBOT_APPROVAL_TOOLS", "delete,remove_everything")
    with pytest.raises(ValueError, match=r"remove_everything.*valid names: update_entry"):
        approval_tools(Settings().approval_tools, REGISTRY)


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("BRAINBOT_TIMEZONE", "Mars/Olympus", "not a time zone"),
        ("BRAINBOT_DIGEST_TIME", "25:99", "HH:MM"),
        ("BRAINBOT_DIGEST_TIME", "8am", "HH:MM"),
        ("BRAINBOT_REMINDER_TIME", "9", "HH:MM"),
    ],
)
def test_a_bad_time_or_zone_is_refused_with_the_settings_name(
    monkeypatch: pytest.MonkeyPatch, setting: str, value: str, said: str
) -> None:
    monkeypatch.setenv(setting, value)
    with pytest.raises(ValidationError, match=rf"(?s){setting}.*{said}"):
        Settings(_env_file=None)


def test_times_and_zones_are_typed_once_read() -> None:
    settings = Settings(
        _env_file=None, BRAINBOT_DIGEST_TIME="7:05", BRAINBOT_TIMEZONE="Europe/Berlin"
    )
    assert settings.digest_time == time(7, 5) and settings.timezone.key == "Europe/Berlin"


def test_direct_changes_empty_means_none_and_unknown_kinds_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert Settings(_env_file=None).direct_changes == ("append", "tag", "tick")
    # Empty variables are otherwise ignored; this one says "every change waits".
    monkeypatch.setenv("BRAINBOT_DIRECT_CHANGES", "")
    assert Settings(_env_file=None).direct_changes == ()
    monkeypatch.delenv("BRAINBOT_DIRECT_CHANGES")
    dotenv = tmp_path / ".env"
    dotenv.write_text("BRAINBOT_DIRECT_CHANGES=\n")
    assert Settings(_env_file=dotenv).direct_changes == ()
    monkeypatch.setenv("BRAINBOT_DIRECT_CHANGES", "Fill, append")  # the environment wins
    assert Settings(_env_file=dotenv).direct_changes == ("fill", "append")
    monkeypatch.setenv("BRAINBOT_DIRECT_CHANGES", "none")
    assert Settings(_env_file=None).direct_changes == ()
    monkeypatch.setenv("BRAINBOT_DIRECT_CHANGES", "append,replace")
    with pytest.raises(ValidationError, match=r"\['replace'\]; valid: append, tag, tick, fill"):
        Settings(_env_file=None)


def test_brainbot_run_stops_on_them_and_says_why(tmp_path: Path) -> None:
    env = clean_env(
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        BRAINBOT_APPROVAL_TOOLS="erase",
        PYTHONPATH=str(ROOT),
    )
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "run"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "BRAINBOT_APPROVAL_TOOLS" in done.stderr and "delete_entry" in done.stderr
    assert not (tmp_path / "data" / "vault").exists()
