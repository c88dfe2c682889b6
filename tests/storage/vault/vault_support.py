"""Helpers for the vault tests: a vault in a temporary folder and the real git CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bot.config import Settings
from storage.entry import Author
from storage.vault.schema import DEFAULT_CATEGORIES
from storage.vault.vault import Vault

CATEGORIES = DEFAULT_CATEGORIES
ANN = Author("Ann Example", "ann@example.org")
# A vault's limits as brainbot starts with them: the settings' defaults, their one home.
LIMITS = {
    "max_bytes": Settings.model_fields["max_note_bytes"].default,
    "max_attachment_bytes": Settings.model_fields["max_attachment_bytes"].default,
}


def make_vault(root: Path, **options: int) -> Vault:
    return Vault(root, CATEGORIES, **{**LIMITS, **options})


def git(root: Path, *args: str) -> str:
    """Run the git CLI in the vault as a user without any git identity would."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


def outside_commit(root: Path, message: str) -> None:
    """Commit every change in the working tree as someone editing by hand would."""
    git(root, "add", "-A")
    git(root, "-c", "user.name=Hand", "-c", "user.email=hand@example.org", "commit", "-qm", message)
