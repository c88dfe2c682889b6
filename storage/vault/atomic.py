"""Crash-safe file writes and the per-vault lock that serialises them."""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

TEMP_SUFFIX = ".bbtmp"
# Each fsync waits for the disk (a few milliseconds on a busy one); those a change needs
# before its next step wait side by side here, so a capture waits about once, not thrice.
_SYNCING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="brainbot-fsync")


def atomic_write(full: Path, data: bytes) -> None:
    """Write `data` to `full` so a reader sees the old file or the new one, never half
    of each: a temp file in the same folder, fsync, then rename over the target."""
    _replace(full, data, sync=True)
    fsync_dir(full.parent)


def replace_unsynced(full: Path, data: bytes) -> None:
    """`atomic_write` without waiting for the disk: a reader (and a process that starts
    after a kill) sees the old file or the new one whole; after a power cut the new one
    may be empty or missing until the caller has had it synced (`Syncs`)."""
    _replace(full, data, sync=False)


def _replace(full: Path, data: bytes, *, sync: bool) -> None:
    full.parent.mkdir(parents=True, exist_ok=True)
    # Hidden and with its own suffix: git status, sync and the import never take it for a note.
    tmp = full.with_name(f".{full.name[:200]}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, full)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class Syncs:
    """fsyncs that run side by side, in threads, until `wait`: each file's content
    (an error is raised by `wait`) and each folder's entries (best effort, as
    `fsync_dir`). The caller takes its next step only after `wait`, so what it
    orders after them stays after them on the disk."""

    def __init__(self) -> None:
        self._pending: list[Future[None]] = []

    def file(self, full: Path) -> None:
        """Sync a file's content, written and closed before this call."""
        self._pending.append(_SYNCING.submit(_fsync_file, full))

    def folder(self, folder: Path) -> None:
        """Sync a folder's entries (the renames, links and unlinks made in it)."""
        self._pending.append(_SYNCING.submit(fsync_dir, folder))

    def wait(self) -> None:
        """Wait for every fsync asked for; the first error is raised once all ended."""
        pending, self._pending = self._pending, []
        errors = [exc for exc in (future.exception() for future in pending) if exc is not None]
        if errors:
            raise errors[0]


def _fsync_file(full: Path) -> None:
    fd = os.open(full, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
