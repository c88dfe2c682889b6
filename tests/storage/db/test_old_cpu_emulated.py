"""brainbot on a CPU that cannot run the embedded server's pgvector (below x86-64-v3:
Core and Xeon before Haswell, Pentium and Celeron chips before ~2020, the Atom-class
ones of small NAS boxes, a VM of the default CPU type): the embedded Postgres runs,
without pgvector, and everything but semantic search works, with the server's own
`postgres` run under qemu-user as the x86-64 baseline would run it (brainbot reads
that CPU's flags). Before, brainbot refused to start the embedded server there at all:
no capture was kept."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import storage.db.connection
from app.commands.doctor_database import database as database_check
from app.serve import Service
from storage.db import cpu_features
from tests.bot.helpers import message, notes
from tests.fakes.brain import Told, make_settings, running_brain
from tests.fakes.openai_server import FakeOpenAI, call
from tests.production.process import free_port
from tests.storage.db.emulation import EmulatedServer
from tests.storage.db.test_cpu_features import cpuinfo, x86_64_only

# The flags Linux shows for QEMU's `qemu64` model, the CPU `-cpu qemu64` emulates:
# the x86-64 baseline with SSE3 (no SSSE3, SSE4, POPCNT, AVX).
QEMU64 = (
    "fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 syscall nx lm rep_good nopl cpuid pni cx16 hypervisor lahf_lm"
)

# Notes written by hand (Obsidian, a git pull), picked up by a sync.
BY_HAND = {
    "ideas/kiln.md": "---\ntitle: Kiln\n---\nFire the glaze kiln at cone six on Saturday.\n",
    "ideas/rye-starter.md": (
        "---\ntitle: Rye starter\n---\nThe sourdough starter wants rye flour, fed twice a "
        "day, and a warm corner of the kitchen.\n"
    ),
}
CAPTURED = "ideas/sourdough-starter.md"
embedded: Any = None  # no DATABASE_URL: the runtime starts its own Postgres


@pytest.fixture
def baseline_cpu(data: Path, monkeypatch: pytest.MonkeyPatch) -> dict[Path, EmulatedServer]:
    """This machine seen as a qemu64, and brainbot's embedded server run as one: the
    servers started, by data folder (the server's package, too, hands every caller of
    a process the one server of a folder)."""
    monkeypatch.setattr(cpu_features, "CPUINFO", data.parent / "cpuinfo")
    (data.parent / "cpuinfo").write_text(cpuinfo(QEMU64))
    servers: dict[Path, EmulatedServer] = {}

    def start_server(pgdata: Path) -> EmulatedServer:
        running = servers.get(pgdata)
        if running is None or running.process.poll() is not None:
            servers[pgdata] = EmulatedServer("qemu64", pgdata)
        return servers[pgdata]

    monkeypatch.setattr(storage.db.connection, "start_server", start_server)
    return servers


@x86_64_only
async def test_brainbot_captures_syncs_and_finds_by_keyword_on_a_baseline_cpu(
    data: Path, baseline_cpu: dict[Path, EmulatedServer], openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title="Sourdough starter",
            body="Feed the sourdough starter twice a day with rye flour",
            confidence=0.9,
            tags=[],
            fields=[],
        )
    ]
    told = Told()
    async with running_brain(
        data.parent, embedded, openai_fake, BRAINBOT_EMBEDDINGS="openai", deliver=told
    ) as brain:
        vault = brain.settings.vault_dir
        for path, text in BY_HAND.items():
            (vault / path).parent.mkdir(parents=True, exist_ok=True)
            (vault / path).write_text(text)
        await brain.store.sync()
        (saved,) = await brain.engine.handle(message("feed the sourdough starter, rye flour"))
        await brain.engine.related.wait_idle()  # its related notes: by words alone here
        (kiln,) = await brain.engine.handle(message("/search glaze kiln"))
        (sourdough,) = await brain.engine.handle(message("/search sourdough starter"))
        doctor = await database_check(brain.settings)

    assert baseline_cpu[data / "pg"].killed() == []  # no SIGILL, no restart
    assert CAPTURED in saved.text
    assert notes(vault) == sorted([*BY_HAND, CAPTURED])
    assert [text.split(":")[0] for text in told.texts] == ["Related"]
    assert "Rye starter" in told.texts[0]
    assert "ideas/kiln.md" in kiln.text and CAPTURED not in kiln.text
    assert CAPTURED in sourdough.text and "ideas/rye-starter.md" in sourdough.text
    # The embedder the settings name is not used: nothing to store its vectors in.
    assert [kind for kind, _ in openai_fake.requests if kind == "embeddings"] == []
    [semantic] = [f for f in doctor if f.topic == "search"]
    assert semantic.level == "warning"
    assert semantic.detail.startswith(
        "semantic search is off: this CPU lacks popcnt, sse4_1, sse4_2, ssse3, avx, avx2, "
    )
    assert semantic.detail.endswith(
        ", which the embedded Postgres' pgvector needs; keyword search works; "
        "BRAINBOT_EMBEDDINGS=openai is not used"
    )
    assert semantic.fix.startswith("set DATABASE_URL to a Postgres with pgvector built for this")
    assert not any(f.level == "problem" for f in doctor), doctor


@x86_64_only
async def test_readyz_of_brainbot_run_says_semantic_search_is_off(
    data: Path, baseline_cpu: dict[Path, EmulatedServer]
) -> None:
    port = free_port()
    settings = make_settings(data.parent, embedded, BRAINBOT_HTTP_PORT=port)
    service = Service(settings, [])
    stop = asyncio.Event()
    running = asyncio.create_task(service.run(stop))
    try:
        async with aiohttp.ClientSession() as http:
            while True:  # until it is ready (or has ended)
                assert not running.done(), "brainbot run ended"
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(f"http://127.0.0.1:{port}/readyz") as response:
                        if response.status == 200:
                            ready = await response.json()
                            break
                await asyncio.sleep(0.2)
    finally:
        stop.set()
        assert await running == 0

    assert baseline_cpu[data / "pg"].killed() == []
    assert ready["notes"] == {
        "search": "semantic search is off: this CPU lacks popcnt, sse4_1, sse4_2, ssse3, avx, "
        "avx2, bmi1, bmi2, f16c, fma, abm, movbe, xsave, which the embedded Postgres' pgvector "
        "needs; keyword search works"
    }
