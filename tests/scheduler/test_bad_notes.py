"""One person's bad note stops nobody else's reminder: a repeat rule or a `remind`
outside what a calendar can hold is read as invalid, skipped, recorded for
`brainbot doctor`, and the scheduler's leader keeps leading."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.app.runtime import Runtime
from bot.app.scheduling import start_scheduler
from tests.fakes.brain import Clock, running_brain
from tests.scheduler.outbox import Outbox, add_ada

BERLIN = ZoneInfo("Europe/Berlin")
NINE = datetime(2026, 11, 24, 9, 0, tzinfo=BERLIN)
OVERFLOW_REPEAT = "FREQ=MONTHLY;INTERVAL=999999999999999999999"
YEAR_ONE = "0001-01-01T00:00:00+14:00"


def _by_hand(brain: Runtime, path: str, frontmatter: str) -> None:
    """A note written into Ada's vault with an editor, not through brainbot."""
    full = brain.settings.vault_dir / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(f"---\n{frontmatter}---\nA note written by hand.\n", encoding="utf-8")


async def test_bad_notes_of_one_person_stop_no_one_else_s_reminder(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(NINE + timedelta(minutes=2))
    outbox = Outbox(clock)
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_ada(brain)
        bob = await add_ada(brain, user_id="U2", chat_id="chat-2")
        _by_hand(
            brain,
            "admin/pay-rent.md",
            f"title: Pay rent\nremind: {(NINE - timedelta(days=31)).isoformat()}\n"
            f"repeat: {OVERFLOW_REPEAT}\n",
        )
        _by_hand(brain, "admin/year-one.md", f"title: Year one\nremind: {YEAR_ONE}\n")
        await brain.store.sync()
        bob_store = await brain.vaults.store(await brain.vaults.of_person(bob.id, "Bob"))
        await bob_store.create("admin", "Call mom", "Call mom.", {"remind": NINE})
        with caplog.at_level(logging.INFO, logger="scheduler.leader"):
            service = await start_scheduler(brain, outbox, poll_seconds=0.05)
            try:
                for _ in range(100):
                    if any(r.text.startswith("⏰") for _, _, r in outbox.sent):
                        break
                    await asyncio.sleep(0.05)
            finally:
                await service.stop()
    print(caplog.text[-3000:])
    print([(c, r.text[:40]) for _, c, r in outbox.sent])
    assert [c for _, c, r in outbox.sent if r.text.startswith("⏰")]
