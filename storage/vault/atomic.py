"""Crash-safe file writes and the per-vault lock that serialises them."""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

TEMP_SUFFIX = ".bbtmp"


def atomic_write(full: Path, data: bytes) -> None:
    """Write `data` to `full` so a reader sees the old file or the new one, never half
    of each: a temp file in the same folder, fsync, then rename over the target."""
    full.parent.mkdir(parents=True, exist_ok=True)
    # Hidden and with its own suffix: git status, sync and the import never take it for a note.
    tmp = full.with_name(f".{full.name[:200]}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, full)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(full.parent)


def remove_file(full: Path, stop_at: Path) -> None:
    """Delete a file, then any folders it leaves empty, up to (not including) `stop_at`."""
    with contextlib.suppress(FileNotFoundError):
        full.unlink()
    fsync_dir(full.parent)
    prune_empty(full.parent, stop_at)


def prune_empty(folder: Path, stop_at: Path) -> None:
    """Remove `folder` and its parents while they are empty, up to (not including) `stop_at`."""
    while folder != stop_at and stop_at in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            break
        folder = folder.parent


def fsync_dir(folder: Path) -> None:
    """Make the renames and unlinks in `folder` durable (they are only once the
    folder itself is synced)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class VaultLock:
    """One writer at a time: a re-entrant thread lock for this process, and an
    exclusive `flock` on a file inside `.git` for other processes. `on_acquire` runs
    each time the lock is taken (not when re-entered): what a dead writer left is
    put right before anyone works under the lock."""

    def __init__(self, lock_file: Path, on_acquire: Callable[[], None] | None = None) -> None:
        self._lock_file = lock_file
        self._on_acquire = on_acquire
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self._thread_lock:
            if self._depth == 0:
                fd = os.open(self._lock_file, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    if self._on_acquire is not None:
                        self._on_acquire()
                except BaseException:
                    os.close(fd)  # closing the file releases the flock
                    raise
                self._fd = fd
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
                    os.close(self._fd)
                    self._fd = None
