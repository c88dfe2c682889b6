"""Reading a file from a vault without trusting what the path holds.

A vault is a folder anyone may put anything in: a named pipe (reading it blocks until
someone writes), a symlink to `/dev/zero` (endless), a sparse 1.5 GB file. Every
read of a note goes through `read_regular`, which looks before it reads: only a
regular file (or a symlink to one inside the vault) is opened, its size is checked
against the cap before a byte is read, and at most cap + 1 bytes are read even if
the file grows meanwhile.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from storage.errors import EntryNotFound, EntryTooLarge, NotAFile

_CHUNK = 1 << 20
# O_NONBLOCK: should the path turn into a pipe between the look and the open, the open
# returns at once instead of waiting for a writer (the fstat then refuses it).
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular(full: Path, rel: str, limit: int | None, root: Path | None = None) -> bytes:
    """The bytes of the regular file at `full` (`rel` names it in errors): EntryNotFound
    when nothing is there, NotAFile for anything but a regular file (a symlink counts
    when it ends at a regular file, inside `root` when given), EntryTooLarge when it
    holds more than `limit` bytes (None: no cap), told before reading."""
    try:
        link = os.lstat(full)
        info = os.stat(full) if stat.S_ISLNK(link.st_mode) else link
    except (FileNotFoundError, NotADirectoryError):
        raise EntryNotFound(rel) from None
    followed = stat.S_ISLNK(link.st_mode)
    if followed and root is not None and not Path(os.path.realpath(full)).is_relative_to(root):
        raise NotAFile(rel, "a symlink leading outside the vault")
    _check(rel, info, limit, "a symlink to " if followed else "")
    flags = _FLAGS if followed else _FLAGS | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(full, flags)
    except FileNotFoundError:
        raise EntryNotFound(rel) from None
    try:
        # What was opened, not what was looked at: the path may have changed in between.
        _check(rel, os.fstat(fd), limit, "")
        return _read_at_most(fd, rel, limit)
    finally:
        os.close(fd)


def _check(rel: str, info: os.stat_result, limit: int | None, prefix: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise NotAFile(rel, prefix + _kind(info.st_mode))
    if limit is not None and info.st_size > limit:
        raise EntryTooLarge(rel, info.st_size, limit)


def _read_at_most(fd: int, rel: str, limit: int | None) -> bytes:
    parts: list[bytes] = []
    size = 0
    while limit is None or size <= limit:
        want = _CHUNK if limit is None else min(_CHUNK, limit + 1 - size)
        part = os.read(fd, want)
        if not part:
            break
        parts.append(part)
        size += len(part)
    if limit is not None and size > limit:
        raise EntryTooLarge(rel, size, limit)  # it grew after the size was checked
    return b"".join(parts)
