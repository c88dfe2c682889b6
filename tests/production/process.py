"""`brainbot run` as a real subprocess, and what a test needs around it: a clean
environment, a free port, and polling of its HTTP endpoints."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import socket
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).parents[2]
START_WITHIN = 60.0  # a cold start on a busy 2-core machine; it usually takes 2-3 s


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def command(
    env: Mapping[str, str], cwd: Path, *args: str, with_log: bool = True
) -> tuple[int, str]:
    """One `brainbot ARGS` command run to its end: its exit code and what it printed
    (standard output, and with `with_log` its standard error too)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        *args,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if with_log else asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode()


def clean_env(**settings: str) -> dict[str, str]:
    """This process's environment without any brainbot setting, plus `settings`."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("BRAINBOT_", "SLACK_", "TELEGRAM_", "OPENAI_"))
        and key != "DATABASE_URL"
    }
    env.update(settings)
    return env


class Brainbot:
    """One `python -m app.cli run` process; its stderr (the log) goes to a file."""

    def __init__(self, tmp_path: Path, env: Mapping[str, str], *, name: str = "brainbot") -> None:
        self.env = dict(env)
        self.port = int(self.env.setdefault("BRAINBOT_HTTP_PORT", str(free_port())))
        self.env.setdefault("BRAINBOT_HTTP_HOST", "127.0.0.1")
        self.log_path = tmp_path / f"{name}.log"
        self.process: asyncio.subprocess.Process | None = None
        self.cwd = tmp_path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, *args: str) -> Brainbot:
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "app.cli",
                *(args or ("run",)),
                env={**self.env, "PYTHONPATH": str(ROOT)},
                cwd=self.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def get(self, path: str) -> tuple[int, str]:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{self.url}{path}", timeout=aiohttp.ClientTimeout(total=5)) as response,
        ):
            return response.status, await response.text()

    async def get_json(self, path: str) -> tuple[int, Any]:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{self.url}{path}", timeout=aiohttp.ClientTimeout(total=5)) as response,
        ):
            return response.status, await response.json()

    async def wait_ready(self, within: float = START_WITHIN) -> float:
        """Poll /readyz until it answers 200; returns the seconds it took."""
        started = time.monotonic()
        deadline = started + within
        while True:
            assert self.process is not None
            if self.process.returncode is not None:
                raise AssertionError(
                    f"brainbot exited with {self.process.returncode}:\n{self.log()}"
                )
            try:
                status, _ = await self.get("/readyz")
                if status == 200:
                    return time.monotonic() - started
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"brainbot not ready within {within}s:\n{self.log()}")
            await asyncio.sleep(0.05)

    async def wait_for_log(self, text: str, within: float = 20.0) -> None:
        """Wait until the log holds `text`."""
        deadline = time.monotonic() + within
        while text not in self.log():
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not logged within {within}s:\n{self.log()}")
            await asyncio.sleep(0.05)

    def signal(self, signum: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    async def wait(self, within: float = 30.0) -> int:
        assert self.process is not None
        try:
            return await asyncio.wait_for(self.process.wait(), within)
        except TimeoutError:
            raise AssertionError(f"brainbot did not exit within {within}s:\n{self.log()}") from None

    async def stop(self) -> int:
        """SIGTERM, then its exit code (SIGKILL if it hangs)."""
        assert self.process is not None
        if self.process.returncode is not None:
            return self.process.returncode
        self.signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 40)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"brainbot ignored SIGTERM:\n{self.log()}") from None


def console_env(tmp_path: Path, database_url: str | None, **settings: str) -> dict[str, str]:
    """Settings for `brainbot run` with no platform: the terminal chat, keyword search."""
    values = {
        "BRAINBOT_DATA_DIR": str(tmp_path / "data"),
        "BRAINBOT_EMBEDDINGS": "none",
        "PYTHONPATH": str(ROOT),
        **settings,
    }
    if database_url is not None:
        values["DATABASE_URL"] = database_url
    return clean_env(**values)


async def start_console(
    tmp_path: Path,
    env: Mapping[str, str],
    *,
    stdout: Any,
    stderr: Any,
    command: str = "chat",
    stdin: Any = asyncio.subprocess.PIPE,
) -> asyncio.subprocess.Process:
    """`python -m app.cli chat` (or `command`) chatting through `stdin`: a pipe, or a
    terminal's side from `terminal()` (`brainbot run` chats only at a terminal)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        command,
        env=dict(env),
        cwd=tmp_path,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
    )


@contextmanager
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal: (what a person types into, what a process reads as its
    terminal); both closed after."""
    typed, read = pty.openpty()
    try:
        yield typed, read
    finally:
        os.close(typed)
        os.close(read)
