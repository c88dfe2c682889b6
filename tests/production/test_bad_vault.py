"""`brainbot run` on an owner's vault full of things it cannot read starts, keeps
finding hand edits, records every skip for `brainbot doctor`, and a named pipe
dropped in while it runs neither blocks the watcher nor keeps the process alive
after SIGTERM."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.vault.vault import Vault
from tests.production.conftest import Fakes
from tests.production.process import Brainbot
from tests.production.test_watch import index_of, wait_until_found
from tests.storage.vault.bad_content import nest, put_bad_things, unnest
from tests.storage.vault.vault_support import LIMITS

pytestmark = pytest.mark.slow  # starts brainbot processes

STOPS_WITHIN = 5.0  # seconds from SIGTERM to exit; a blocked watcher took 45


async def skipped_rows(database_url: str, tmp_path: Path) -> dict[str, tuple[str, str]]:
    async with index_of(database_url, tmp_path) as db, db.engine.connect() as conn:
        rows = await conn.execute(text('SELECT path, "where", reason FROM skipped_items'))
        return {r.path: (r.where, r.reason) for r in rows}


async def test_a_vault_of_bad_things_starts_syncs_and_stops_promptly(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    owner = tmp_path / "data" / "vault"
    Vault(owner, ("ideas", "inbox"), **LIMITS).create("ideas", "Good", "A good heron.")
    put_bad_things(owner / "ideas", "a", pipe=False)
    nest(owner, 1000)
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_SYNC_INTERVAL="3600")
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        os.mkfifo(owner / "ideas" / "pipe.md")  # seen by the watcher, never opened
        (owner / "ideas" / "good.md").write_text("---\ntitle: Good\n---\nA grey heron.\n")
        async with index_of(database_url, tmp_path) as db:
            await wait_until_found(db, 1, "grey heron", ["ideas/good.md"])
            await wait_until_found(db, 1, "walrusa", ["ideas/date-a.md"])
            await wait_until_found(db, 1, "ottera", ["ideas/latin-a.md"])
            (owner / "ideas" / "later.md").write_text("A later lapwing.\n")
            await wait_until_found(db, 1, "lapwing", ["ideas/later.md"])

        rows = await skipped_rows(database_url, tmp_path)
        assert rows["ideas/date-a.md"][0] == "sync" and "invalid date" in rows["ideas/date-a.md"][1]
        assert "1500000000 bytes" in rows["ideas/big-a.md"][1]
        assert "not UTF-8" in rows["ideas/latin-a.md"][1]
        assert "ideas/zero-a.md" in rows
        assert rows["ideas/pipe.md"][0] == "watch" and "named pipe" in rows["ideas/pipe.md"][1]
        assert any("64 folders deep" in reason for _, reason in rows.values())

        started = time.monotonic()
        assert await bot.stop() == 0
        assert time.monotonic() - started < STOPS_WITHIN, bot.log()
        assert "Traceback" not in bot.log()
    finally:
        await bot.stop()
        await asyncio.to_thread(unnest, owner)
