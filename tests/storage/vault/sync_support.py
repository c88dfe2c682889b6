"""Helpers for the sync tests: a bare remote on disk and a second clone of it acting as
a person's device (a laptop with Obsidian and obsidian-git, say), driven by the real
git CLI with the device's own identity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

DEVICE = "Ann laptop"


def run_git(
    where: Path, *args: str, check: bool = True, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The git CLI as the device's person runs it (no global config, own identity)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(where.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
        "GIT_AUTHOR_NAME": DEVICE,
        "GIT_AUTHOR_EMAIL": "ann@laptop.example",
        "GIT_COMMITTER_NAME": DEVICE,
        "GIT_COMMITTER_EMAIL": "ann@laptop.example",
    }
    return subprocess.run(
        ["git", "-C", str(where), *args],
        env=env,
        capture_output=True,
        text=True,
        check=check,
        input=input_text,
    )


def bare_remote(path: Path) -> Path:
    """An empty bare repository whose default branch is main."""
    path.mkdir(parents=True)
    run_git(path, "init", "--quiet", "--bare", "--initial-branch=main")
    return path


class Device:
    """A clone of the remote that edits, commits and pushes as a person would."""

    def __init__(self, remote: Path, root: Path) -> None:
        self.root = root
        run_git(remote.parent, "clone", "--quiet", str(remote), str(root))
        run_git(root, "checkout", "--quiet", "-B", "main")

    def write(self, path: str, text: str) -> None:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text, encoding="utf-8")

    def read(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def commit(self, message: str = "vault backup") -> None:
        run_git(self.root, "add", "--all")
        run_git(self.root, "commit", "--quiet", "-m", message)

    def push(self) -> subprocess.CompletedProcess[str]:
        return run_git(self.root, "push", "--quiet", "origin", "HEAD:main", check=False)

    def pull(self) -> None:
        run_git(self.root, "pull", "--quiet", "--no-rebase", "origin", "main")

    def git(self, *args: str) -> str:
        return run_git(self.root, *args).stdout
