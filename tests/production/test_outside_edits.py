"""A running bot notices notes written outside it (Obsidian, `git pull`)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from app.serve import follow_outside_edits
from tests.fakes.brain import running_brain


async def test_a_hand_written_note_becomes_searchable_without_a_restart(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        follower = asyncio.create_task(follow_outside_edits(brain, 0.05))
        try:
            note = brain.settings.vault_dir / "ideas" / "written-in-obsidian.md"
            note.write_text("---\ntitle: Heron\n---\nA heron fishing by the canal.\n")
            for _ in range(200):  # up to 10 s
                hits = (await brain.store.search("heron canal")).hits
                if hits:
                    break
                await asyncio.sleep(0.05)
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
    assert [h.path for h in hits] == ["ideas/written-in-obsidian.md"]
