"""The console adapter end to end: `brainbot chat` in a real process, fed by a pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot.helpers import git_log, notes

pytestmark = pytest.mark.slow  # starts brainbot processes


def test_brainbot_chat_through_piped_stdin(tmp_path: Path, database_url: str) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("BRAINBOT_", "OPENAI_", "SLACK_", "TELEGRAM_"))
    }
    env.update(BRAINBOT_DATA_DIR=str(tmp_path / "data"), DATABASE_URL=database_url)
    lines = [
        "project: launch the website",
        "/list projects",
        "/delete projects/launch-the-website.md",
        "1",
        "/list projects",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "chat"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Saved to projects/launch-the-website.md" in out
    assert "[1] Approve  [2] Reject" in out
    assert "Approved: Delete projects/launch-the-website.md" in out
    assert out.rstrip().endswith("Nothing there yet.")
    vault = tmp_path / "data" / "vault"
    assert notes(vault) == []
    assert any("delete projects/launch-the-website.md" in s for s in git_log(vault))
