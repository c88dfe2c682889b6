"""Writes to one vault from several processes never interleave: each takes the
vault's Postgres advisory lock for its write and commit, which a process on
another host sharing the folder sees too (a file lock alone may not be)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from sqlalchemy import text

from storage.db.vault_lock import VAULT_WRITE
from tests.storage.index.index_support import connected, opened_store


async def test_a_write_waits_for_the_vaults_lock_held_elsewhere(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url, keyword_only=True) as store:
        async with connected(database_url) as other, other.engine.connect() as conn:
            # Another process holds this vault's lock (another vault's is free).
            await conn.execute(
                text("SELECT pg_advisory_lock(:c, :v)"), {"c": VAULT_WRITE, "v": store.vault_id}
            )
            write = asyncio.ensure_future(store.create("ideas", "Kites", "Fly them."))
            await asyncio.sleep(0.5)
            assert not write.done()
            assert not (tmp_path / "vault" / "ideas" / "kites.md").exists()
            await conn.execute(
                text("SELECT pg_advisory_unlock(:c, :v)"), {"c": VAULT_WRITE, "v": store.vault_id}
            )
            await conn.commit()
            entry = await asyncio.wait_for(write, 10)
        assert entry.path == "ideas/kites.md"
        assert [h.path for h in (await store.search("kites")).hits] == ["ideas/kites.md"]


async def test_two_stores_on_one_vault_write_in_turn(tmp_path: Path, database_url: str) -> None:
    """Two processes' stores (own connections, own in-process locks) on one folder."""
    vault = tmp_path / "vault"
    async with (
        opened_store(vault, database_url, keyword_only=True) as first,
        opened_store(vault, database_url, keyword_only=True) as second,
    ):
        await asyncio.gather(
            *(first.create("ideas", f"First {n}", "x") for n in range(15)),
            *(second.create("ideas", f"Second {n}", "y") for n in range(15)),
        )
        log = _parents(vault)
        assert len(log) >= 30 and all(len(p.split()) <= 1 for p in log)  # one line, no merges
        await first.sync()
        assert await first.index.count() == 30


def _parents(vault: Path) -> list[str]:
    """The parents of every commit, newest first."""
    out = subprocess.run(
        ["git", "-C", str(vault), "log", "--format=%P"], capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()
