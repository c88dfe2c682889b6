"""What the embedded Postgres' binaries need of the CPU, read from /proc/cpuinfo: on a
CPU that lacks it, the server runs without pgvector (instead of a server that dies at
the first vector, again and again). /proc/cpuinfo is replaced by the flags of real
processors."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db import cpu_features
from storage.db.connection import Database
from storage.db.cpu_features import cpu_flags, missing_features

# An Intel Xeon E3-1230 v2 (Ivy Bridge, 2012): AVX and F16C, no AVX2, FMA, BMI.
IVY_BRIDGE = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts "
    "acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx rdtscp lm constant_tsc arch_perfmon "
    "pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 "
    "monitor ds_cpl vmx smx est tm2 ssse3 cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic popcnt "
    "tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm cpuid_fault epb pti ssbd ibrs "
    "ibpb stibp tpr_shadow vnmi flexpriority ept vpid fsgsbase smep erms xsaveopt dtherm "
    "ida arat pln pts md_clear flush_l1d"
)
# An Intel Core i7-4770 (Haswell, 2013): the first of the level the binaries need.
HASWELL = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts "
    "acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc "
    "arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni "
    "pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid "
    "sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand "
    "lahf_lm abm cpuid_fault epb invpcid_single pti ssbd ibrs ibpb stibp tpr_shadow vnmi "
    "flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid "
    "xsaveopt dtherm ida arat pln pts md_clear flush_l1d"
)

x86_64_only = pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"),
    reason="the check reads x86-64 features; other machines are not checked",
)


def cpuinfo(flags: str) -> str:
    return "\n".join(
        f"processor\t: {n}\nvendor_id\t: GenuineIntel\nflags\t\t: {flags}\n" for n in (0, 1)
    )


def test_the_features_are_read_from_cpuinfo() -> None:
    assert cpu_flags(cpuinfo(HASWELL)) == set(HASWELL.split())
    assert cpu_flags("processor\t: 0\n") is None


@x86_64_only
def test_a_haswell_and_this_machine_have_what_the_server_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert missing_features() == []  # the machine running the suite runs the server too
    monkeypatch.setattr(cpu_features, "CPUINFO", tmp_path / "cpuinfo")
    (tmp_path / "cpuinfo").write_text(cpuinfo(HASWELL))
    assert missing_features() == []


@x86_64_only
async def test_on_a_cpu_without_avx2_the_server_runs_without_pgvector(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was not started at all: "this CPU lacks avx2, …, so it was not started"."""
    monkeypatch.setattr(cpu_features, "CPUINFO", data.parent / "cpuinfo")
    (data.parent / "cpuinfo").write_text(cpuinfo(IVY_BRIDGE))

    database = await Database.connect(None, data)
    try:
        async with database.engine.connect() as conn:
            extensions = list(await conn.scalars(text("SELECT extname FROM pg_extension")))
            columns = list(await conn.scalars(_COLUMNS, {"table": "chunks"}))
    finally:
        await database.close()

    assert database.cpu_lacks == ("avx2", "bmi1", "bmi2", "fma", "abm", "movbe")
    assert not database.vectors
    assert extensions == ["plpgsql"]  # pgvector never loaded
    assert columns == ["id", "vault_id", "entry_id", "ord", "start"]  # no `embedding`


_COLUMNS = text(
    "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(:table)"
    " AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
)
