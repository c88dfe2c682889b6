"""What a sync skips reaches `brainbot doctor`'s ledger with the note's path, is
counted once per problem (not at every sync), and is cleared once the note reads
fine again."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime
from pathlib import Path

from app.commands.doctor_database import skipped_this_week
from app.runtime import Runtime
from app.watch import sync_store
from storage.db.skipped import SkippedItems
from tests.bot.helpers import message
from tests.fakes.brain import running_brain
from tests.storage.vault.bad_content import BAD_DATE
from tests.storage.vault.vault_support import make_vault


async def test_a_bad_note_is_recorded_once_and_cleared_when_fixed(
    tmp_path: Path, database_url: str
) -> None:
    vault_dir = tmp_path / "data" / "vault"
    make_vault(vault_dir)
    (vault_dir / "ideas" / "old.md").write_text(BAD_DATE)
    counted: list[str] = []
    async with running_brain(tmp_path, database_url) as brain:
        brain.skips.items.counted = counted.append
        ledger = SkippedItems(brain.database.engine)
        rows = await ledger.this_week(datetime.now(UTC))
        assert [(r.where, r.vault_id, r.path) for r in rows] == [("sync", 1, "ideas/old.md")]
        assert "invalid date" in rows[0].reason

        (vault_dir / "ideas" / "other.md").write_text("Another note.\n")
        await sync_store(brain.store, "test", brain.skips)
        assert counted == []  # the same problem again: not counted again

        (vault_dir / "ideas" / "old.md").write_text("---\nupdated: 2026-01-02\n---\nFixed.\n")
        await sync_store(brain.store, "test", brain.skips)
        assert await ledger.this_week(datetime.now(UTC)) == []


def _long_tag() -> str:
    """Letters no compression shortens: a tag longer than an index row may be."""
    letters = random.Random(38)
    return "".join(letters.choice(string.ascii_lowercase) for _ in range(3000))


async def _shown(brain: Runtime) -> list[tuple[str, str]]:
    """What `brainbot doctor` says was skipped this week: (topic, detail)."""
    return [(f.topic, f.detail) for f in await skipped_this_week(brain.database)]


async def test_a_note_the_index_refuses_is_in_doctor_until_it_is_indexed(
    tmp_path: Path, database_url: str
) -> None:
    vault_dir = tmp_path / "data" / "vault"
    make_vault(vault_dir)
    tagged = f"---\ntitle: Birds\ntags: [{_long_tag()}]\n---\nA pelican.\n"
    (vault_dir / "ideas" / "birds.md").write_text(tagged)
    async with running_brain(tmp_path, database_url) as brain:
        # The sync at start left it out, and said so; everything else goes on.
        ((topic, detail),) = await _shown(brain)
        assert topic == "skipped (index)"
        assert detail.startswith("ideas/birds.md in vault 1: could not be indexed: a tag is too")
        (answer,) = await brain.engine.handle(message("remember to water the ferns"))
        assert "went wrong" not in answer.text
        assert await brain.store.index.paths() == ["inbox/remember-to-water-the-ferns.md"]

        # Fixed by the bot: indexed, and the row goes.
        await brain.store.update("ideas/birds.md", fields={"tags": ["birds"]})
        assert "ideas/birds.md" in await brain.store.index.paths()
        assert await _shown(brain) == []

        # A change of the bot's own that the index refuses is written all the same.
        await brain.store.update("ideas/birds.md", fields={"tags": [_long_tag()]})
        assert _long_tag() in (vault_dir / "ideas" / "birds.md").read_text()
        assert [topic for topic, _ in await _shown(brain)] == ["skipped (index)"]
        assert "ideas/birds.md" not in await brain.store.index.paths()

        # Fixed by hand: the sync indexes it, and the row goes.
        (vault_dir / "ideas" / "birds.md").write_text("---\ntags: [birds]\n---\nA pelican.\n")
        await sync_store(brain.store, "test", brain.skips)
        assert "ideas/birds.md" in await brain.store.index.paths()
        assert await _shown(brain) == []
