"""`brainbot run` as deployed: idle memory with a 10,000-note vault (target
<= 250 MB resident) and start-up time to ready (/readyz 200) with the embedded
database (target <= 5 s).

The vault is generated (as for the digest benchmark) and imported with
`brainbot import` into a temporary data folder, which also builds the index.
Then `brainbot run` is started several times as a real process (Telegram
polling against the fake Bot API, no model): each start is timed from the spawn
to the first 200 from /readyz, and after the last one the process is left idle
and its resident memory sampled. The embedded Postgres' processes are reported
beside it, not in it. A first start on an empty data folder (initdb included)
is timed too, for information.

Run: `python -m bench.production [starts]`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import psutil

from bench.digest import NOTES, write_vault
from tests.fakes.telegram_api import FakeTelegram

TARGET_RSS_MB = 250.0
TARGET_READY_S = 5.0
IDLE_SECONDS = 5.0
ROOT = Path(__file__).parents[1]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(data: Path, telegram: FakeTelegram) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BRAINBOT_", "SLACK_", "TELEGRAM_", "OPENAI_")) and k != "DATABASE_URL"
    }
    env.update(
        BRAINBOT_DATA_DIR=str(data),
        BRAINBOT_EMBEDDINGS="none",
        BRAINBOT_HTTP_PORT=str(_free_port()),
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_URL=telegram.root,
        PYTHONPATH=str(ROOT),
    )
    return env


async def _ready(port: int, process: asyncio.subprocess.Process, within: float = 120) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if process.returncode is not None:
                raise RuntimeError(f"brainbot run exited with {process.returncode}")
            try:
                async with session.get(f"http://127.0.0.1:{port}/readyz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.02)
    raise RuntimeError("brainbot run was not ready in time")


async def _start(env: dict[str, str], log: Path) -> tuple[asyncio.subprocess.Process, float]:
    """Spawn `brainbot run`; return it once ready, with the seconds that took."""
    started = time.perf_counter()
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.cli",
            "run",
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=out,
        )
    await _ready(int(env["BRAINBOT_HTTP_PORT"]), process)
    return process, time.perf_counter() - started


async def _stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGTERM)
    if await asyncio.wait_for(process.wait(), 60) != 0:
        raise RuntimeError(f"brainbot run exited with {process.returncode} on SIGTERM")


def _postgres_rss(data: Path) -> int:
    """Resident memory of the embedded server: the postmaster and its backends."""
    total = 0
    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "postgres" and str(data) in " ".join(proc.info["cmdline"] or ()):
            for member in [proc, *proc.children()]:
                total += member.memory_info().rss
    return total


async def run(starts: int = 3) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-production-") as tmp:
        root = Path(tmp)
        log = root / "brainbot.log"
        write_vault(root / "source")
        async with FakeTelegram() as telegram:
            env = _env(root / "first", telegram)
            process, first_start = await _start(env, log)
            await _stop(process)

            env = _env(root / "data", telegram)
            began = time.perf_counter()
            importing = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "app.cli",
                "import",
                str(root / "source"),
                env=env,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            if await importing.wait() != 0:
                raise RuntimeError("brainbot import failed")
            imported = time.perf_counter() - began
            timings = []
            for number in range(starts):
                process, seconds = await _start(env, log)
                timings.append(seconds)
                if number < starts - 1:
                    await _stop(process)
            await asyncio.sleep(IDLE_SECONDS)  # idle: nothing arrives, the poll waits
            rss = [psutil.Process(process.pid).memory_info().rss for _ in range(5)]
            postgres = _postgres_rss(root / "data")
            await _stop(process)
    return {
        "notes": float(NOTES),
        "import_s": imported,
        "idle_rss_mb": max(rss) / 2**20,
        "postgres_rss_mb": postgres / 2**20,
        "ready_median_s": statistics.median(timings),
        "ready_max_s": max(timings),
        "first_start_s": first_start,
    }


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures; exit 1 when one misses its target."""
    starts = int(argv[0]) if argv else 3
    r = asyncio.run(run(starts))
    print(
        f"production: idle RSS of brainbot run with {NOTES:,} notes {r['idle_rss_mb']:.0f} MB "
        f"(target ≤ {TARGET_RSS_MB:.0f} MB; the embedded Postgres adds "
        f"{r['postgres_rss_mb']:.0f} MB in its own processes); start-up to ready with the "
        f"embedded database: median {r['ready_median_s']:.2f} s, max {r['ready_max_s']:.2f} s "
        f"over {starts} starts (target ≤ {TARGET_READY_S:.0f} s); first start on an empty "
        f"data folder {r['first_start_s']:.2f} s; import of the vault {r['import_s']:.0f} s"
    )
    ok = r["idle_rss_mb"] <= TARGET_RSS_MB and r["ready_median_s"] <= TARGET_READY_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
