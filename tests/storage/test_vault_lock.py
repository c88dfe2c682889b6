"""Writes to one vault from several processes never interleave: each takes the
vault's Postgres advisory lock for its write and commit, which a process on
another host sharing the folder sees too (a file lock alone may not be)."""

from __future__ import annotations

import asyncio
import fcntl
import os
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


async def test_a_write_whose_lock_session_is_cut_lands_and_frees_the_vault(
    tmp_path: Path, database_url: str
) -> None:
    """The lock's connection is cut while the note is written (a server restart, a
    proxy's idle timeout): the note still lands and is indexed, the write does not
    fail for the release it could not send, and the next writer gets the lock."""
    root = tmp_path / "vault"
    async with opened_store(root, database_url, keyword_only=True) as store:
        keys = {"c": VAULT_WRITE, "v": store.vault_id}
        holder = text(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = :c AND objid = :v"
        )
        # The vault's own file lock, held here, keeps the write waiting inside its
        # Postgres lock until that lock's session is cut.
        fd = os.open(root / ".git" / "brainbot.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            write = asyncio.ensure_future(store.create("ideas", "Kites", "Fly them."))
            async with connected(database_url) as other, other.engine.connect() as conn:
                pids: list[int] = []
                for _ in range(100):
                    pids = list((await conn.execute(holder, keys)).scalars())
                    if pids:
                        break
                    await asyncio.sleep(0.05)
                assert len(pids) == 1
                await conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pids[0]})
                await conn.commit()
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        entry = await asyncio.wait_for(write, 10)
        assert entry.path == "ideas/kites.md" and (root / "ideas" / "kites.md").is_file()
        boats = await asyncio.wait_for(store.create("ideas", "Boats", "Sail them."), 10)
        assert boats.path == "ideas/boats.md"
        assert [h.path for h in (await store.search("kites")).hits] == ["ideas/kites.md"]
