"""The embedded Postgres after a crash: a process killed with -9, or a machine that
restarted with a stale postmaster.pid, does not stop the next start or its clean stop."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from sqlalchemy import text

from storage.db.connection import Database

pytestmark = pytest.mark.slow  # starts brainbot processes

HOLD = """
import asyncio, sys
from pathlib import Path
from storage.db.connection import Database

async def main():
    await Database.connect(None, Path(sys.argv[1]))
    print("up", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "pg" / "postmaster.pid").read_text().splitlines()[0])


def running(pid: int) -> bool:
    # The server outlived its parent, so it may linger as a zombie nobody reaps.
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_a_clean_stop_after_a_kill_9_stops_the_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, str(data_dir), stdout=subprocess.PIPE
    )
    assert holder.stdout is not None
    assert (await holder.stdout.readline()).strip() == b"up"
    holder.send_signal(signal.SIGKILL)
    await holder.wait()
    server = postmaster_pid(data_dir)

    database = await Database.connect(None, data_dir)
    async with database.engine.connect() as conn:
        assert await conn.scalar(text("SELECT 1")) == 1
    await database.close()

    assert not running(server)


async def test_a_postmaster_pid_naming_another_process_is_ignored(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    database = await Database.connect(None, data_dir)
    pid_file = data_dir / "pg" / "postmaster.pid"
    lines = pid_file.read_text().splitlines()
    await database.close()
    # After a container restart the old server's pid may be any other live process.
    pid_file.write_text("\n".join([str(os.getpid()), *lines[1:]]) + "\n")

    database = await Database.connect(None, data_dir)
    try:
        async with database.engine.connect() as conn:
            assert await conn.scalar(text("SELECT 1")) == 1
    finally:
        await database.close()
