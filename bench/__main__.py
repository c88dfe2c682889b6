"""`make bench`: run every benchmark in this folder, each in a process of its own.

A benchmark is a module here with a `main(argv) -> int` (exit code 1 when a figure
misses its target); adding one needs no registration. Own processes keep their
figures apart (peak memory, loaded models) and a crash in one from stopping the rest.

Run: `python -m bench [name ...]` (default: all, in alphabetical order).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).parent


def benchmarks() -> list[str]:
    """Module names in bench/ that define `main` (helpers such as the corpus do not)."""
    return sorted(
        path.stem
        for path in HERE.glob("*.py")
        if not path.stem.startswith("_") and "\ndef main(" in path.read_text(encoding="utf-8")
    )


def main(argv: Sequence[str] = ()) -> int:
    names = list(argv) or benchmarks()
    unknown = sorted(set(names) - set(benchmarks()))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(benchmarks())}")
        return 2
    outcomes: list[tuple[str, int, float]] = []
    for name in names:
        print(f"\n=== bench.{name} ===", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"bench.{name}"], cwd=HERE.parent)
        outcomes.append((name, code, time.perf_counter() - started))
    print("\n=== summary ===")
    for name, code, seconds in outcomes:
        verdict = "ok" if code == 0 else f"MISSED A TARGET (exit {code})"
        print(f"bench.{name:<20} {seconds:6.1f} s  {verdict}")
    return 0 if all(code == 0 for _, code, _ in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
