"""Git remotes for the backup tests: a bare repository standing in for GitHub, and
another machine's clone that pushes to it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.storage.vault.vault_support import git

HAND = ("-c", "user.name=Ada", "-c", "user.email=ada@example.org")


def bare_remote(path: Path) -> Path:
    subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(path)], check=True)
    return path


def remote_head(remote: Path, branch: str = "main") -> str | None:
    done = subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "--verify", "-q", f"refs/heads/{branch}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or None


def other_machine(remote: Path, where: Path) -> Path:
    """A clone of the remote, as someone's laptop would have."""
    subprocess.run(["git", "clone", "-q", str(remote), str(where)], check=True)
    return where


def empty_laptop(remote: Path, where: Path) -> Path:
    """A new repository that pushes to the (still empty) remote."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True)
    git(where, "remote", "add", "origin", str(remote))
    return where


def commit_file(clone: Path, rel: str, text: str) -> None:
    (clone / rel).parent.mkdir(parents=True, exist_ok=True)
    (clone / rel).write_text(text)
    git(clone, "add", rel)
    git(clone, *HAND, "commit", "-qm", f"edit {rel} by hand")
    git(clone, "push", "-q", "origin", "HEAD:main")
