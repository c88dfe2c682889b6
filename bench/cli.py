"""How fast the command line answers: the median wall time of `brainbot --help`,
`--version`, `search --help`, and of `search x`, `token --list` and `doctor` on a small
brain whose embedded Postgres is already running (as it is next to a `brainbot run`),
each a fresh process.

Targets: `--help` and `--version` within 0.3 s.

Several checkouts can be timed side by side in one sitting, their runs interleaved so
that a busy machine weighs on each alike: `python -m bench.cli [runs] [--source DIR ...]`
(default: 7 runs of this checkout; the first source is the one held to the targets).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from storage.db import Database

HERE = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.3
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("--version",),
    ("search", "--help"),
    ("search", "x"),
    ("token", "--list"),
    ("doctor",),
)
HELD_TO_TARGET = {("--help",), ("--version",)}
NOTE = "---\ntitle: Note {n}\n---\nThe kitchen tap drips again, note {n}.\n"


def _env(data: Path, source: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("BRAINBOT_", "SLACK_", "TELEGRAM_", "OPENAI_"))
        and key != "DATABASE_URL"
    }
    env.update(BRAINBOT_DATA_DIR=str(data), BRAINBOT_EMBEDDINGS="none", PYTHONPATH=str(source))
    return env


def _brainbot(source: Path, data: Path, args: Sequence[str]) -> float:
    """Seconds from start to exit of `python -m app.cli ARGS` in `source` (an older
    checkout without `--version` is timed refusing it: the parser's cost)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=source,
        env=_env(data, source),
        capture_output=True,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0 and args != ("--version",):
        raise RuntimeError(f"brainbot {' '.join(args)} in {source}: {done.stderr.decode()[-2000:]}")
    return took


async def measure(sources: Sequence[Path], runs: int, root: Path) -> dict[Path, list[float]]:
    """Each source's median per command (in COMMANDS' order)."""
    notes = root / "notes"
    notes.mkdir()
    for n in range(20):
        (notes / f"note-{n}.md").write_text(NOTE.format(n=n))
    datas = {source: root / f"data-{i}" for i, source in enumerate(sources)}
    for source, data in datas.items():  # a brain per checkout, in case their schemas differ
        _brainbot(source, data, ("import", str(notes)))
    held = [await Database.connect(None, data) for data in datas.values()]
    try:
        times: dict[tuple[Path, tuple[str, ...]], list[float]] = {}
        for _ in range(runs):
            for command in COMMANDS:
                for source in sources:
                    took = _brainbot(source, datas[source], command)
                    times.setdefault((source, command), []).append(took)
    finally:
        for database in held:
            await database.close()
    return {s: [statistics.median(times[(s, c)]) for c in COMMANDS] for s in sources}


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli", description=__doc__)
    parser.add_argument("runs", nargs="?", type=int, default=7)
    parser.add_argument("--source", type=Path, action="append", help="a checkout to time")
    args = parser.parse_args(argv)
    sources = [s.resolve() for s in args.source or [HERE]]
    with tempfile.TemporaryDirectory(prefix="brainbot-bench-cli-") as tmp:
        medians = asyncio.run(measure(sources, max(1, args.runs), Path(tmp)))
    print(f"median seconds of {args.runs} runs each, a fresh process per run")
    print(f"{'command':<20}" + "".join(f"{str(s)[-30:]:>32}" for s in sources))
    for i, command in enumerate(COMMANDS):
        row = "".join(f"{medians[s][i]:>32.3f}" for s in sources)
        print(f"{' '.join(command):<20}{row}")
    missed = [
        " ".join(command)
        for i, command in enumerate(COMMANDS)
        if command in HELD_TO_TARGET and medians[sources[0]][i] > TARGET_SECONDS
    ]
    if missed:
        print(f"MISSED the {TARGET_SECONDS} s target: {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
