"""A running `brainbot run` finds notes changed by hand at once, not at the next
periodic sync (set to an hour here): a new note, an edit, a delete, a `git pull`
of many notes, in the owner's vault and in another person's; with the watch turned
off, the periodic sync still finds them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import text

from storage.db.connection import Database
from storage.index.index import Index
from tests.fakes.slack_payloads import dm_event, event_body, post_signed
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.gitremote import HAND
from tests.production.process import Brainbot
from tests.storage.vault.vault_support import git

pytestmark = pytest.mark.slow  # starts brainbot processes

WITHIN = 20.0  # a deadline for a busy machine; it takes well under a second


@asynccontextmanager
async def index_of(database_url: str, tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.connect(database_url, tmp_path / "reader")
    try:
        yield database
    finally:
        await database.close()


async def found(database: Database, vault_id: int, query: str) -> list[str]:
    return sorted(
        h.path for h in (await Index(database, None, vault_id=vault_id).search(query)).hits
    )


async def _committed_by_hand(vault: Path) -> list[str]:
    """The paths of the vault's hand-edit commits, once there are any (within WITHIN)."""
    deadline = time.monotonic() + WITHIN
    while True:
        log = git(vault, "log", "--author=outside@brainbot.local", "--name-only", "--format=")
        if log.split() or time.monotonic() > deadline:
            return log.split()
        await asyncio.sleep(0.1)


async def wait_until_found(
    database: Database, vault_id: int, query: str, wanted: list[str], within: float = WITHIN
) -> None:
    """Poll the search the bot's tools run until it returns `wanted`."""
    deadline = time.monotonic() + within
    while (hits := await found(database, vault_id, query)) != wanted:
        assert time.monotonic() < deadline, f"{query!r} finds {hits}, not {wanted}"
        await asyncio.sleep(0.05)


def note(text_: str) -> str:
    return f"---\ntitle: By hand\n---\n{text_}\n"


async def test_hand_edits_in_two_vaults_are_searchable_at_once(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, BRAINBOT_SYNC_INTERVAL="3600")
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        owner = tmp_path / "data" / "vault"
        heron = owner / "ideas" / "heron.md"
        heron.write_text(note("A heron fishing by the canal."))
        async with index_of(database_url, tmp_path) as db:
            await wait_until_found(db, 1, "heron canal", ["ideas/heron.md"])

            heron.write_text(note("A heron fishing by the weir."))
            await wait_until_found(db, 1, "heron weir", ["ideas/heron.md"])
            await wait_until_found(db, 1, "canal", [])

            heron.unlink()
            await wait_until_found(db, 1, "heron", [])

            # Slack's person has the owner's vault; Telegram's, not linked, a vault of
            # their own under data/vaults: edits there reach that vault's index.
            async with aiohttp.ClientSession() as session:
                body = event_body(dm_event("Remember the tea shop on Elm Street"))
                assert (await post_signed(session, f"{bot.url}/slack/events", body))[0] == 200
            await fakes.slack.wait_for("chat.postMessage", within=WITHIN)
            fakes.telegram.queue_update(Updates().message("Buy a kite for the beach"))
            await fakes.telegram.wait_for("sendMessage", within=WITHIN)
            async with db.engine.connect() as conn:
                other_id, name = (
                    await conn.execute(text("SELECT id, name FROM vaults WHERE id <> 1"))
                ).one()
            other = tmp_path / "data" / "vaults" / name
            (other / "projects").mkdir(exist_ok=True)
            (other / "projects" / "kite.md").write_text(note("Kite string and a spare spool."))
            await wait_until_found(db, other_id, "spool", ["projects/kite.md"])
            assert await found(db, 1, "spool") == []

        # The bot's own writes index themselves: the watcher's sync after them has
        # nothing to commit as a hand edit. The hand edits are in the history.
        by_hand = git(owner, "log", "--author=outside@brainbot.local", "--name-only", "--format=")
        assert "ideas/heron.md" in by_hand.split()
        assert "tea-shop" not in by_hand
        # A note written while a sync ran (the capture's own) is indexed by that sync and
        # committed by the next one, which its own change set off.
        assert await _committed_by_hand(other) == ["projects/kite.md"]
        assert await bot.stop() == 0
        assert "Traceback" not in bot.log()
    finally:
        await bot.stop()


async def test_a_git_pull_of_many_notes_is_searchable_at_once(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_SYNC_INTERVAL="3600")
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        owner = tmp_path / "data" / "vault"
        laptop = tmp_path / "laptop"
        git(tmp_path, "clone", "-q", str(owner), str(laptop))
        for n in range(300):
            (laptop / "ideas" / f"pulled-{n}.md").parent.mkdir(exist_ok=True)
            (laptop / "ideas" / f"pulled-{n}.md").write_text(note(f"Pulled note zebra{n}."))
        git(laptop, "add", "-A")
        git(laptop, *HAND, "commit", "-qm", "300 notes written on a laptop")

        git(owner, *HAND, "pull", "-q", "--ff-only", str(laptop), "HEAD")

        async with index_of(database_url, tmp_path) as db:
            await wait_until_found(db, 1, "zebra299", ["ideas/pulled-299.md"])
            await wait_until_found(db, 1, "zebra0", ["ideas/pulled-0.md"])
            async with db.engine.connect() as conn:
                count = (
                    await conn.execute(
                        text("SELECT count(*) FROM entries WHERE vault_id = 1 AND path LIKE :p"),
                        {"p": "ideas/pulled-%"},
                    )
                ).scalar_one()
            assert count == 300
        # A pull is already a commit: nothing is committed again as a hand edit.
        assert "edited outside brainbot" not in git(owner, "log", "--format=%b%s")
    finally:
        assert await bot.stop() == 0


async def test_with_the_watch_off_the_periodic_sync_finds_hand_edits(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(
        tmp_path, database_url, slack=None, BRAINBOT_SYNC_INTERVAL="1", BRAINBOT_WATCH="false"
    )
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        (tmp_path / "data" / "vault" / "ideas" / "heron.md").write_text(note("A grey heron."))
        async with index_of(database_url, tmp_path) as db:
            await wait_until_found(db, 1, "grey heron", ["ideas/heron.md"])
    finally:
        assert await bot.stop() == 0
