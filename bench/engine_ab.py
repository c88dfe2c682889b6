"""bench.engine's capture figure (event to reply, 10,000 notes, real Postgres, real
git) for two checkouts side by side, in alternating blocks, so that both see the
same host: on a shared 2-core machine one run's median swings by 5-10 ms with what
the neighbours do, more than most changes save.

Each checkout gets a worker process of its own, running that checkout's code with
its own `.venv` (its bench.engine's `open_runtime`, `message` and `RoundTrips`):
the 10,000-note vault is set up once and `WARMUP` captures are made, by both workers
at the same time (in A/A runs, a worker set up before the other was about 2 ms a
capture slower, in CPU too, in every block); then the workers take turns, one block
of captures at a time (A B, B A, A B, ...). The one not capturing waits on its stdin,
idle.

Per checkout it prints the median over every capture, the lowest of its blocks'
medians, the CPU time per capture of the bench process (the engine, its threads
and the fake model) and of the Postgres server, the fsyncs the bench process makes
per capture and the round trips; then, over the pairs of blocks run back to back,
the median of B's block median minus A's, and how many pairs each side was faster.
The CPU, fsync and round-trip counts barely move with the host's load; the paired
difference moves much less than either median.

Run: `python -m bench.engine_ab OTHER [blocks] [per_block]` (OTHER: the root of the
other checkout, B; this checkout is A; 12 blocks of 20 captures by default). OTHER
may be this checkout too: the spread of an A/A run is the host's noise.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve()
NOTES = 10_000
_WORKER = "__engine_ab_worker__"


def _server_cpu(pid_file: Path) -> float:
    """CPU seconds used so far by a Postgres server and its processes (from /proc)."""
    try:
        postmaster = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    ticks = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(proc.name) == postmaster or int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


async def _serve(stdout: IO[str]) -> None:
    """The worker: the bench's runtime in this checkout, capturing a block at each
    `run N` line on stdin, until stdin ends."""
    from bench.engine import WARMUP, RoundTrips, message, open_runtime
    from tests.fakes.openai_server import FakeOpenAI
    from tests.fakes.scripts import capture_everything

    fsyncs = [0]
    real_fsync = os.fsync

    def counted(fd: Any) -> None:
        fsyncs[0] += 1
        real_fsync(fd)

    os.fsync = counted  # counted, not changed: the bench process's own fsyncs
    openai = FakeOpenAI()
    openai.responder = capture_everything
    await openai.start()
    try:
        with tempfile.TemporaryDirectory(prefix="brainbot-bench-ab-") as tmp:
            runtime = await open_runtime(Path(tmp), NOTES, openai)
            try:
                found = await asyncio.to_thread(lambda: list(Path(tmp).rglob("postmaster.pid")))
                pid_file = found[0] if found else Path(tmp) / "none"
                trips = (
                    RoundTrips.of(runtime.database)
                    if hasattr(RoundTrips, "of")  # an older checkout's counts its two engines
                    else RoundTrips(runtime.database.engine, runtime.database.locks)
                )
                number = 0

                async def capture() -> None:
                    nonlocal number
                    number += 1
                    text = f"ab note {number}"
                    replies = await runtime.engine.handle(message("ab", f"ab{number}", text))
                    if not replies or "Saved to" not in replies[0].text:
                        raise RuntimeError(f"unexpected reply: {replies}")

                for _ in range(WARMUP):
                    await capture()
                stdout.write(json.dumps({"ready": True}) + "\n")
                stdout.flush()
                loop = asyncio.get_running_loop()
                while line := await loop.run_in_executor(None, sys.stdin.readline):
                    count = int(line.split()[1])
                    block: dict[str, Any] = {"ms": [], "trips": [], "fsyncs": []}
                    cpu, server = time.process_time(), _server_cpu(pid_file)
                    for _ in range(count):
                        f, r, started = fsyncs[0], trips.count, time.perf_counter()
                        await capture()
                        block["ms"].append((time.perf_counter() - started) * 1000)
                        block["fsyncs"].append(fsyncs[0] - f)
                        block["trips"].append(trips.count - r)
                    block["cpu_ms"] = (time.process_time() - cpu) * 1000 / count
                    block["server_ms"] = (_server_cpu(pid_file) - server) * 1000 / count
                    stdout.write(json.dumps(block) + "\n")
                    stdout.flush()
            finally:
                await runtime.close()
    finally:
        await openai.stop()


class Worker:
    """A worker process running bench.engine's capture in one checkout."""

    def __init__(self, checkout: Path) -> None:
        code = f"import runpy; runpy.run_path({str(HERE)!r}, run_name={_WORKER!r})"
        self.checkout = checkout
        self.process = subprocess.Popen(
            [str(checkout / ".venv" / "bin" / "python"), "-c", code],
            cwd=checkout,
            env={**os.environ, "PYTHONPATH": str(checkout)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.blocks: list[dict[str, Any]] = []

    def ready(self) -> None:
        """Wait until the worker's vault is set up and warmed up."""
        self._answer()

    def run(self, count: int) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"run {count}\n")
        self.process.stdin.flush()
        self.blocks.append(self._answer())

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                answer: dict[str, Any] = json.loads(line)
                return answer
        raise RuntimeError(f"the worker in {self.checkout} ended: {self.process.wait()}")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def _figures(name: str, worker: Worker) -> str:
    times = [ms for block in worker.blocks for ms in block["ms"]]
    medians = [statistics.median(block["ms"]) for block in worker.blocks]
    fsyncs = [n for block in worker.blocks for n in block["fsyncs"]]
    trips = [n for block in worker.blocks for n in block["trips"]]
    cpu = statistics.median(block["cpu_ms"] for block in worker.blocks)
    server = statistics.median(block["server_ms"] for block in worker.blocks)
    return (
        f"{name} ({worker.checkout}): median {statistics.median(times):.1f} ms, lowest block "
        f"median {min(medians):.1f} ms, CPU {cpu:.1f} ms + Postgres {server:.1f} ms a capture, "
        f"{statistics.median(fsyncs):.0f} fsyncs, {statistics.median(trips):.0f} round trips"
    )


def compare(other: Path, blocks: int = 12, per_block: int = 20) -> str:
    """The report of an interleaved run of this checkout (A) against `other` (B)."""
    a = Worker(HERE.parent.parent)
    try:
        b = Worker(other.resolve())
        try:
            a.ready()
            b.ready()
            for number in range(blocks):
                for worker in (a, b) if number % 2 == 0 else (b, a):
                    worker.run(per_block)
        finally:
            b.close()
    finally:
        a.close()
    diffs = [
        statistics.median(y["ms"]) - statistics.median(x["ms"])
        for x, y in zip(a.blocks, b.blocks, strict=True)
    ]
    faster = sum(d > 0 for d in diffs)
    return (
        f"engine A/B, {blocks} alternating blocks of {per_block} captures on {NOTES:,} notes\n"
        f"  {_figures('A', a)}\n  {_figures('B', b)}\n"
        f"  B - A, block by block: median {statistics.median(diffs):+.1f} ms "
        f"(A faster in {faster} of {blocks} pairs)"
    )


def cli(argv: Sequence[str]) -> int:
    """Print the comparison (see the module doc)."""
    if not argv:
        print(__doc__)
        return 2
    numbers = [int(arg) for arg in argv[1:3]]
    print(compare(Path(argv[0]), *numbers))
    return 0


if __name__ == _WORKER:
    asyncio.run(_serve(sys.stdout))
elif __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
