"""`brainbot chat` as a person drives it: lines through a pipe, or keys through a
pseudo-terminal; the vault it leaves behind is read back from disk."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.in_process import brainbot
from tests.production.process import ROOT, clean_env

PTY_TIMEOUT = 120.0  # a cold start on a busy 2-core machine


def chat_env(tmp_path: Path, database_url: str, **settings: str) -> dict[str, str]:
    return clean_env(
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        DATABASE_URL=database_url,
        BRAINBOT_EMBEDDINGS="none",
        PYTHONPATH=str(ROOT),
        **settings,
    )


def piped_chat(
    tmp_path: Path, database_url: str, lines: list[str] | bytes, *args: str
) -> subprocess.CompletedProcess[str]:
    """Run `brainbot chat` (or `args`) with `lines` on a pipe; its output as text. In
    this process (tests.in_process): these tests are about what the chat answers and
    files; tests/bot/test_console.py pipes into a real `brainbot chat` process."""
    data = lines if isinstance(lines, bytes) else ("\n".join(lines) + "\n").encode()
    return brainbot(args or ("chat",), chat_env(tmp_path, database_url), tmp_path, data)


def piped_chat_process(
    tmp_path: Path, database_url: str, lines: list[str]
) -> subprocess.CompletedProcess[str]:
    """`brainbot chat` as a real process with `lines` on a pipe; its output as text."""
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "chat"],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        env=chat_env(tmp_path, database_url),
        cwd=tmp_path,
        timeout=180,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


class Terminal:
    """`brainbot chat` on a pseudo-terminal: what a person types, what the screen shows."""

    def __init__(
        self,
        tmp_path: Path,
        database_url: str,
        program: tuple[str, ...] = ("-m", "app.cli", "chat"),
    ) -> None:
        """Start `python PROGRAM` (brainbot's chat unless told) on a new pseudo-terminal."""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become brainbot, as a shell starts it
            env = chat_env(tmp_path, database_url, TERM="xterm")
            os.chdir(tmp_path)
            # A shell hands its commands no blocked and no ignored signals; the test
            # worker forking here may have either (both survive exec).
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
                signal.signal(signum, signal.SIG_DFL)
            os.execve(sys.executable, [sys.executable, *program], env)
        self.screen = b""

    def read_until(self, expected: bytes, count: int = 1) -> bytes:
        """Read the screen until `expected` has shown `count` times (AssertionError
        with the screen if it does not)."""
        deadline = time.monotonic() + PTY_TIMEOUT
        while self.screen.count(expected) < count:
            left = deadline - time.monotonic()
            assert left > 0, f"{expected!r} never showed; the screen:\n{self.screen!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                assert chunk, f"the chat ended before {expected!r}; the screen:\n{self.screen!r}"
                self.screen += chunk
        return self.screen

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def wait_exit(self, timeout: float = 60.0) -> int:
        """The exit code once the process ends (reading the screen meanwhile)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._drain()
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self._drain(0.2)
        signals = _signal_state(self.pid)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        raise AssertionError(f"the chat did not end ({signals}); the screen:\n{self.screen!r}")

    def _drain(self, wait: float = 0.0) -> None:
        while True:
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            self.screen += chunk
            wait = 0.0


def _signal_state(pid: int) -> str:
    """The signal masks of a process and its threads, for a failure's message."""
    lines = []
    for status in [Path(f"/proc/{pid}/status"), *Path(f"/proc/{pid}/task").glob("*/status")]:
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines())
        except OSError:
            continue
        lines.append(
            " ".join(f"{k}={fields.get(k, '?').strip()}" for k in ("Name", "SigBlk", "SigIgn"))
        )
    return "; ".join(lines)
