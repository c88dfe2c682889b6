"""The database's vector side follows the CPU the embedded server runs on: on one its
pgvector cannot run on (an Ivy Bridge here: AVX, no AVX2) brainbot runs keyword-only
and says so; a data folder moved there from a newer machine with vectors in it is
refused unchanged, with the way out, which works; moved back, semantic search returns.
The server runs natively here (the emulated run: test_old_cpu_emulated)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from adapters.platform import Finding
from app.commands.doctor_database import database as database_check
from app.commands.storage import opened_store
from storage.db import cpu_features
from storage.db.connection import Database
from storage.db.vector_side import SEMANTIC_SEARCH_FIX
from storage.errors import EmbeddedPostgresUnsupportedCpu
from tests.fakes.brain import make_settings, running_brain
from tests.fakes.openai_server import FakeOpenAI
from tests.storage.db.test_cpu_features import HASWELL, IVY_BRIDGE, cpuinfo, x86_64_only

IVY_LACKS = "avx2, bmi1, bmi2, fma, abm, movbe"
NOTES = {
    "ideas/kiln.md": "---\ntitle: Kiln\n---\nFire the glaze kiln at cone six on Saturday.\n",
    "ideas/bread.md": "---\ntitle: Bread\n---\nBake rye bread with the sourdough starter.\n",
}
PLAIN_INDEXES = ["chunks_vault", "ix_chunks_entry_id"]
embedded: Any = None  # no DATABASE_URL: the embedded Postgres under the data folder


class Cpu:
    """The CPU brainbot sees (the file it reads for /proc/cpuinfo): a Haswell or an Ivy
    Bridge (the server runs on this machine's either way)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.becomes_newer()

    def becomes_old(self) -> None:
        self.path.write_text(cpuinfo(IVY_BRIDGE))

    def becomes_newer(self) -> None:
        self.path.write_text(cpuinfo(HASWELL))


@pytest.fixture
def cpu(data: Path, monkeypatch: pytest.MonkeyPatch) -> Cpu:
    monkeypatch.setattr(cpu_features, "CPUINFO", data.parent / "cpuinfo")
    return Cpu(data.parent / "cpuinfo")


@x86_64_only
async def test_doctor_says_semantic_search_is_off_and_keyword_search_works(
    data: Path, cpu: Cpu
) -> None:
    """Doctor said: PROBLEM database: the embedded Postgres: this CPU lacks avx2, …"""
    cpu.becomes_old()
    settings = make_settings(data.parent, embedded)  # BRAINBOT_EMBEDDINGS=none

    ok, search = await database_check(settings)

    assert ok.level == "ok"
    assert ok.detail.startswith("the embedded Postgres: Postgres 18.")
    assert ", no pgvector (this CPU cannot run it), schema version " in ok.detail
    assert search == Finding(
        "note",
        "search",
        f"semantic search is off: this CPU lacks {IVY_LACKS}, which the embedded Postgres' "
        "pgvector needs; keyword search works",
        SEMANTIC_SEARCH_FIX,
    )


def _write(vault: Path) -> None:
    for path, text_ in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text_)


async def _vector_side(data: Path) -> tuple[list[str], list[str]]:
    """The extensions of the embedded database, and its indexes on `chunks`."""
    database = await Database.connect(None, data)
    try:
        async with database.engine.connect() as conn:
            extensions = list(await conn.scalars(text("SELECT extname FROM pg_extension")))
            indexes = list(
                await conn.scalars(
                    text("SELECT indexname FROM pg_indexes WHERE tablename = 'chunks'")
                )
            )
    finally:
        await database.close()
    return sorted(extensions), sorted(indexes)


@x86_64_only
async def test_a_folder_with_vectors_moved_to_an_old_cpu_is_refused_until_they_are_dropped(
    data: Path, cpu: Cpu, openai_fake: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    embeddings = {"BRAINBOT_EMBEDDINGS": "openai", "BRAINBOT_EMBEDDING_MODEL": "nomic-embed-text"}
    async with running_brain(data.parent, embedded, openai_fake, **embeddings) as brain:
        _write(brain.settings.vault_dir)
        await brain.store.sync()
        assert (await brain.store.search("glaze kiln")).mode == "hybrid"
    before = await _vector_side(data)
    assert "chunks_embedding_hnsw" in before[1]

    # Moved to an old CPU: pgvector would kill the server on the HNSW index.
    cpu.becomes_old()
    with pytest.raises(EmbeddedPostgresUnsupportedCpu) as refused:
        await Database.connect(None, data)
    assert str(refused.value).startswith(
        f"this CPU lacks {IVY_LACKS}, which the embedded Postgres' pgvector is compiled "
        "for (x86-64-v3: AVX2, FMA, BMI2), and the database holds what only pgvector reads "
        "(the vectors of 2 notes, the vector index chunks_embedding_hnsw): the server would "
        "crash on it, so brainbot did not start (nothing was changed).\n"
        "on a machine with AVX2, drop them first with `BRAINBOT_EMBEDDINGS=none brainbot "
        "reindex --embed`"
    )
    cpu.becomes_newer()
    assert await _vector_side(data) == before

    # The way out, where the vectors were made: `brainbot reindex --embed` without embeddings.
    async with opened_store(make_settings(data.parent, embedded), reembed=True) as store:
        await store.reindex()

    cpu.becomes_old()
    caplog.set_level(logging.WARNING)
    async with running_brain(data.parent, embedded, openai_fake, **embeddings) as brain:
        found = await brain.store.search("glaze kiln")
        (brain.settings.vault_dir / "ideas/kiln.md").write_text(
            NOTES["ideas/kiln.md"] + "\nThe kiln shelf cracked.\n"
        )
        await brain.store.sync()
        shelf = await brain.store.search("shelf")
    assert (found.mode, [h.path for h in found.hits]) == ("keyword", ["ideas/kiln.md"])
    assert found.notes == (
        "keyword search only: this CPU cannot run pgvector (see `brainbot doctor`)",
    )
    assert [h.path for h in shelf.hits] == ["ideas/kiln.md"]
    assert (
        f"semantic search is off: this CPU lacks {IVY_LACKS}, which the embedded Postgres' "
        "pgvector needs; keyword search works; BRAINBOT_EMBEDDINGS=openai is not used; for "
        f"semantic search, {SEMANTIC_SEARCH_FIX}" in caplog.messages
    )
    # pgvector is gone from the database: nothing here loads it.
    assert await _vector_side(data) == (["plpgsql"], ["chunks_pkey", *PLAIN_INDEXES])
    cpu.becomes_newer()

    # Back on a CPU with AVX2: the vector side returns and the notes get their vectors.
    asked = len(openai_fake.requests)
    async with running_brain(data.parent, embedded, openai_fake, **embeddings) as brain:
        back = await brain.store.search("glaze kiln")
    assert back.mode == "hybrid" and back.hits[0].path == "ideas/kiln.md"
    assert [kind for kind, _ in openai_fake.requests[asked:]].count("embeddings") >= 1
