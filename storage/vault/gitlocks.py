"""Lock files a crashed write left in the vault's `.git`.

libgit2 (like git) writes the index and refs through `index.lock`, `HEAD.lock` and
`refs/.../<name>.lock`, renamed over the real file when done. A process killed in
between leaves the lock behind, and every later write then fails ("index is
locked") until someone deletes it by hand.

`clear_stale_locks` is called with the vault's own lock held, so no brainbot
process is writing. A lock file is then removed only when it is clearly nobody's:
no running process has it open and no `git` process works in the vault (read
from /proc). Where /proc is not available, only a lock older than ten minutes is
removed. A git command run by hand keeps its lock.

When the index lock was stale, the index may miss the last commits (they were
made, then the index update was cut short), so it is reset to HEAD's tree: the
vault only ever records committed content there, and the working tree is not
touched.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pygit2

log = logging.getLogger(__name__)

PROC = Path("/proc")
AGE_WITHOUT_PROC = 600.0


def lock_files(git_dir: Path) -> list[Path]:
    """The lock files git and libgit2 use for the index, HEAD and refs."""
    found = [p for p in (git_dir / "index.lock", git_dir / "HEAD.lock") if p.is_file()]
    refs = git_dir / "refs"
    if refs.is_dir():
        found.extend(p for p in refs.rglob("*.lock") if p.is_file())
    packed = git_dir / "packed-refs.lock"
    if packed.is_file():
        found.append(packed)
    return found


def _processes() -> list[Path]:
    return [p for p in PROC.iterdir() if p.name.isdigit()]


def _holders(paths: set[str], worktree: Path) -> set[str]:
    """Those of `paths` some process has open, or all of them when a git process
    works inside `worktree`."""
    held: set[str] = set()
    root = str(worktree)
    for proc in _processes():
        try:
            if (proc / "comm").read_text().strip() == "git":
                cwd = os.readlink(proc / "cwd")
                if cwd == root or cwd.startswith(root + os.sep):
                    return set(paths)
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target in paths:
                    held.add(target)
        except OSError:
            continue  # the process ended, or is not ours to look at
    return held


def clear_stale_locks(git_dir: Path, worktree: Path) -> list[Path]:
    """Remove the lock files nobody holds (see the module doc); returns them."""
    locks = lock_files(git_dir)
    if not locks:
        return []
    if PROC.is_dir():
        # /proc shows real paths: compare with symlinks resolved.
        real = {p: str(p.resolve()) for p in locks}
        held = _holders(set(real.values()), worktree.resolve())
        stale = [p for p in locks if real[p] not in held]
    else:
        now = time.time()
        stale = [p for p in locks if now - p.stat().st_mtime > AGE_WITHOUT_PROC]
    for path in stale:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        log.warning("removed %s, left by a write that was interrupted", path.relative_to(git_dir))
    return stale


def recover_interrupted_write(repo: pygit2.Repository, worktree: Path) -> None:
    """Clear stale lock files and, if the index's was one, reset the index to HEAD."""
    git_dir = Path(repo.path)
    removed = clear_stale_locks(git_dir, worktree)
    if git_dir / "index.lock" in removed and not repo.head_is_unborn:
        index = repo.index
        index.read_tree(repo.head.peel(pygit2.Commit).tree)
        index.write()
        log.warning("the git index was reset to the last commit after an interrupted write")


def git_at_work(worktree: Path) -> bool:
    """Whether a `git` command (a pull, a checkout) is running in `worktree` now: its
    files may be half written, and HEAD not moved yet. Without /proc, whether git holds
    one of its lock files."""
    if not PROC.is_dir():
        return bool(lock_files(worktree / ".git"))
    root = str(worktree.resolve())
    for proc in _processes():
        try:
            if (proc / "comm").read_text().strip() != "git":
                continue
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue  # the process ended, or is not ours to look at
        if cwd == root or cwd.startswith(root + os.sep):
            return True
    return False
