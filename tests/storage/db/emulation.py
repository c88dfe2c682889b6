"""The shipped server's `postgres` run under qemu-user as another CPU would run it
(Debian's `qemu-user`: `make test` installs it as root; without it the tests that need
it are skipped, saying what to install).

`-cpu qemu64` is the x86-64 baseline (no SSE4, no AVX: a VM's default CPU type, the
Atom-class chips of small NAS boxes are barely above it), `Nehalem` x86-64-v2,
`IvyBridge` AVX without AVX2, `Haswell` x86-64-v3 (AVX2, no AVX-512)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from storage.db.embedded_pg import installed_bindir, start_server

X86_64 = platform.machine().lower() in ("x86_64", "amd64")


def qemu() -> str | None:
    """qemu-user's x86-64 emulator, if it emulates AVX2 (7.2 and later: Debian 12's)."""
    found = shutil.which("qemu-x86_64") if X86_64 else None
    if found is None:
        return None
    said = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
    version = re.search(r"version (\d+)\.(\d+)", said)
    return found if version and (int(version[1]), int(version[2])) >= (7, 2) else None


def needs_qemu() -> str:
    """The emulator, or the test is skipped saying what to install."""
    found = qemu()
    if found is None:
        pytest.skip(
            "needs qemu-x86_64 7.2 or later on x86-64: apt-get install qemu-user (make test does)"
        )
    return found


class EmulatedServer:
    """The shipped server's `postgres` under qemu-user as the CPU `cpu` would run it, on
    `pgdata` (made natively by the package when empty: as root, a system user of its own
    owns the folder and runs the server), logging to the folder's `log` as the
    package's server does. Answers `get_uri` and `cleanup` as the package's server
    object does, so brainbot's embedded start can be handed one."""

    def __init__(self, cpu: str, pgdata: Path) -> None:
        emulator = needs_qemu()
        if not (pgdata / "PG_VERSION").is_file():
            start_server(pgdata).cleanup()  # initdb, start, stop
        self.pgdata = pgdata
        owner = pgdata.stat()
        as_owner = {"user": owner.st_uid, "group": owner.st_gid} if os.geteuid() == 0 else {}
        postgres = [str(installed_bindir() / "postgres"), "-D", str(pgdata), "-k", str(pgdata)]
        settings = ["-c", "listen_addresses=", "-c", "fsync=off"]
        with (pgdata / "log").open("a") as log:
            self.process = subprocess.Popen(
                [emulator, "-cpu", cpu, *postgres, *settings],
                stdout=log,
                stderr=subprocess.STDOUT,
                **as_owner,
            )
        self.conninfo = f"host={pgdata} user=postgres dbname=postgres"
        try:
            self._wait_until_it_answers()
        except BaseException:
            self.cleanup()
            raise

    def _wait_until_it_answers(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(self.conninfo).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def get_uri(self) -> str:
        """The URI brainbot connects to, as the package's server gives it."""
        return f"postgresql://postgres:@/postgres?host={self.pgdata}"

    def cleanup(self) -> None:
        """Stop the server (a fast shutdown), waiting for it."""
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def killed(self) -> list[str]:
        """The lines of its log that say a process of the server died of a signal."""
        log = (self.pgdata / "log").read_text(errors="replace")
        return [line for line in log.splitlines() if "signal" in line]


@contextmanager
def emulated_server(cpu: str, data: Path) -> Iterator[str]:
    """An EmulatedServer on `data`/pg for the block; yields its conninfo."""
    server = EmulatedServer(cpu, data / "pg")
    try:
        yield server.conninfo
    finally:
        server.cleanup()
