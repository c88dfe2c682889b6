"""The child process of the crash tests: renames the note 1,500 notes link to through
the real Vault API, and is killed (kill -9) or meets a full disk part-way.

    python -m tests.storage.vault.crash_child kill <vault> <n> [undo | <folder>]
    python -m tests.storage.vault.crash_child copies <vault> <into> <n,n,...> [undo | <folder>]
    python -m tests.storage.vault.crash_child full <vault> <out> <free bytes>

`kill` counts the file-system writes of the rename (Python's audit events: opening
for writing, rename, link, unlink, mkdir, rmdir), kills itself with SIGKILL just
before the n-th (0: never), and otherwise prints every write's event name, one a
line. With `undo`, the rename is made first and its undo is what gets killed; with
a folder, the import of that folder is.
`copies` runs the same change to its end, and just before each n-th write copies the
vault as a kill there would leave it to <into>/<n>: the files are what the writes
before it made (none is buffered in the process between two writes), so one run
stands for a kill at each of many points.
`full` runs in its own user and mount namespace (`unshare`): it copies the vault onto
a tmpfs, fills the tmpfs until only <free bytes> are left, renames, prints the error
(if any) and copies the vault as the failure left it to <out>.

    python -m tests.storage.vault.crash_child serve

`serve` forks a child for each request on stdin (tests/storage/vault/forked.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from storage.entry import Written
from tests.storage.vault.forked import serve
from tests.storage.vault.vault_support import ANN, make_vault

OLD = "ideas/target-note.md"
NEW = "ideas/renamed-note.md"
_WRITES = {"os.rename", "os.link", "os.remove", "os.rmdir", "os.mkdir"}


def rename(root: Path) -> Written:
    """What the rename tool does: open the vault as `brainbot run` does, then rename."""
    return make_vault(root).rename(OLD, "Renamed note", author=ANN)


def _change(root: Path, what: str, before_write: Callable[[int], None]) -> list[str]:
    """Make the change `what` names (see the module doc), calling `before_write(n)`
    just before its n-th write; the writes' event names."""
    vault = make_vault(root)
    renamed = vault.rename(OLD, "Renamed note", author=ANN) if what == "undo" else None
    seen: list[str] = []
    counting = True

    def hook(event: str, args: tuple[Any, ...]) -> None:
        nonlocal counting
        writing = (
            event == "open" and isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR)
        )
        if counting and (event in _WRITES or writing):
            seen.append(event)
            counting = False  # what `before_write` itself writes is not the change's
            try:
                before_write(len(seen))
            finally:
                counting = True

    sys.addaudithook(hook)
    if renamed is not None:
        vault.undo(renamed.change.commit, author=ANN)
    elif what:
        vault.import_tree(Path(what))
    else:
        vault.rename(OLD, "Renamed note", author=ANN)
    return seen


def _killed_at(root: Path, at: int, what: str) -> None:
    def kill(number: int) -> None:
        if number == at:
            os.kill(os.getpid(), signal.SIGKILL)

    print("\n".join(_change(root, what, kill)))


def _copied_at(root: Path, into: Path, points: set[int], what: str) -> None:
    def copy(number: int) -> None:
        if number in points:
            shutil.copytree(root, into / str(number), symlinks=True)

    print("\n".join(_change(root, what, copy)))


def _full_disk(root: Path, out: Path, free: int) -> None:
    disk = out.parent / "tmpfs"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(disk)], check=True)
    vault = disk / "vault"
    shutil.copytree(root, vault, symlinks=True)
    stat = os.statvfs(disk)
    ballast = stat.f_bavail * stat.f_frsize - free
    if ballast > 0:
        fd = os.open(disk / "ballast", os.O_WRONLY | os.O_CREAT, 0o600)
        os.posix_fallocate(fd, 0, ballast)
        os.close(fd)
    try:
        rename(vault)
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}")
    else:
        print("renamed")
    shutil.copytree(vault, out, symlinks=True)
    # The namespace may outlive this process (`serve`): its full disk must not (freed
    # once the vault this process holds open is closed, at its exit).
    subprocess.run(["umount", "--lazy", str(disk)], check=True)


def _run(argv: list[str]) -> None:
    mode, *rest = argv
    if mode == "kill":
        _killed_at(Path(rest[0]), int(rest[1]), rest[2] if len(rest) > 2 else "")
    elif mode == "copies":
        points = {int(n) for n in rest[2].split(",")}
        _copied_at(Path(rest[0]), Path(rest[1]), points, rest[3] if len(rest) > 3 else "")
    elif mode == "full":
        _full_disk(Path(rest[0]), Path(rest[1]), int(rest[2]))
    elif mode == "serve":
        serve(_run)
    else:
        raise SystemExit(f"unknown mode {mode!r}: see the module's doc")


if __name__ == "__main__":
    _run(sys.argv[1:])
