"""What a sync skips reaches `brainbot doctor`'s ledger with the note's path, is
counted once per problem (not at every sync), and is cleared once the note reads
fine again."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.app.watch import sync_store
from storage.db.skipped import SkippedItems
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
