"""The child process of the sync crash tests: one round of two-way sync of the vault
with its remote (fetch, a merge of many notes through the journal, push), killed
(kill -9) just before its n-th file-system write or git command.

    python -m tests.storage.vault.sync_crash_child <vault> <remote> <n>
    python -m tests.storage.vault.sync_crash_child serve

Writes are counted as in crash_child (Python's audit events: opening for writing,
rename, link, unlink, mkdir, rmdir), and every git command the round starts
(`subprocess.Popen`) counts too, so the kill also falls between the listing, the
fetch, the merge and the push. With n = 0 nothing is killed and every point's event
name is printed, one a line. `serve` forks a child for each request on stdin
(tests/storage/vault/forked.py).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from storage.vault.remote_sync import RemoteSync
from tests.storage.vault.forked import serve
from tests.storage.vault.vault_support import make_vault

_WRITES = {"os.rename", "os.link", "os.remove", "os.rmdir", "os.mkdir", "subprocess.Popen"}


def _sync_killed_at(root: Path, remote: str, at: int) -> list[str]:
    vault = make_vault(root)
    seen: list[str] = []

    def hook(event: str, args: tuple[Any, ...]) -> None:
        writing = (
            event == "open" and isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR)
        )
        if event in _WRITES or writing:
            seen.append(event)
            if len(seen) == at:
                os.kill(os.getpid(), signal.SIGKILL)

    sys.addaudithook(hook)
    done = RemoteSync(vault, remote).run()
    assert done.problem is None, done.problem
    return seen


def _run(argv: list[str]) -> None:
    if argv == ["serve"]:
        serve(_run)
    else:
        print("\n".join(_sync_killed_at(Path(argv[0]), argv[1], int(argv[2]))))


if __name__ == "__main__":
    _run(sys.argv[1:])
