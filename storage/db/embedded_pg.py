"""What a killed brainbot leaves in the embedded Postgres' data folder, cleared
before pgserver looks at it.

- pgserver keeps the pids of the processes using a server in `.handle_pids.json`
  and stops the server when the last one exits. A process killed with -9 never
  removes its pid, so the server would never be stopped again (seen with pgserver
  0.1.4). Pids of processes that are gone are dropped.
- `postmaster.pid` names the server's process. After a machine or container
  restart that pid may belong to some other process: pgserver then takes the dead
  server for running and hands out its address, and Postgres refuses to start.
  The file is removed when its pid is not a running `postgres` process (no server
  is using the folder then).
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path

import psutil  # installed with pgserver, which uses it the same way

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
    """Drop the pids of processes that are gone from pgserver's list; returns them."""
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


def clear_stale_state(pgdata: Path) -> None:
    """Both of the above, under pgserver's own inter-process lock."""
    if not pgdata.is_dir():
        return
    from pgserver.postgres_server import PostgresServer

    with PostgresServer._lock:
        forget_dead_handles(pgdata)
        remove_stale_postmaster_pid(pgdata)
