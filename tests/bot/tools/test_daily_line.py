"""A capture lands in today's daily note too, when the vault keeps daily notes: one
line with the time and a link, in the person's time zone, in the same commit."""

from __future__ import annotations

import asyncio
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from tests.bot.helpers import message, notes
from tests.fakes.brain import Clock, running_brain

# 23:41 in Los Angeles on the 19th is already the 20th in UTC.
LATE = datetime(2026, 11, 20, 7, 41, tzinfo=UTC)


def obsidian_daily_notes(vault: Path) -> None:
    (vault / ".obsidian").mkdir(parents=True, exist_ok=True)
    settings = {"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Day"}
    (vault / ".obsidian/daily-notes.json").write_text(json.dumps(settings))
    (vault / "Templates").mkdir(exist_ok=True)
    (vault / "Templates/Day.md").write_text("# {{date:dddd D MMMM}}\n\n## Plan\n\n")


async def test_each_capture_adds_a_line_to_today_s_daily_note_in_one_commit(
    tmp_path: Path, database_url: str
) -> None:
    obsidian_daily_notes(tmp_path / "data" / "vault")
    clock = Clock(LATE)
    async with running_brain(
        tmp_path, database_url, clock=clock, BRAINBOT_TIMEZONE="America/Los_Angeles"
    ) as brain:
        await brain.engine.handle(message("idea: a heron logo for the club"))
        clock.advance(minutes=5)
        await brain.engine.handle(message("idea: print the logo on mugs"))
        vault = brain.settings.vault_dir
        daily = (vault / "Daily/2026-11-19.md").read_text()
        assert daily == (
            "# Thursday 19 November\n\n## Plan\n\n## Captured\n"
            "- 23:41 [[a-heron-logo-for-the-club|A heron logo for the club]]\n"
            "- 23:46 [[print-the-logo-on-mugs|Print the logo on mugs]]\n"
        )
        command = ["git", "-C", str(vault), "show", "--stat", "--format=%s", "HEAD"]
        run = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True)
        shown = run.stdout
        assert "ideas/print-the-logo-on-mugs.md" in shown and "Daily/2026-11-19.md" in shown
        hits = (await brain.store.search("heron")).hits
        assert {h.path for h in hits} >= {"ideas/a-heron-logo-for-the-club.md"}


async def test_daily_notes_are_off_unless_the_vault_or_the_setting_says_so(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("idea: tea garden"))
        assert notes(brain.settings.vault_dir) == ["ideas/tea-garden.md"]
    async with running_brain(
        tmp_path / "two", database_url, clock=Clock(LATE), BRAINBOT_DAILY_NOTE="journal"
    ) as brain:
        await brain.engine.handle(message("idea: tea garden"))
        journal = (brain.settings.vault_dir / "journal/2026-11-20.md").read_text()
        assert journal == "## Captured\n- 07:41 [[tea-garden|Tea garden]]\n"


async def test_log_writes_straight_into_today_s_daily_note(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(LATE)) as brain:
        (off,) = await brain.engine.handle(message("/log fed the cat"))
        assert off.text.startswith("Daily notes are off") and notes(brain.settings.vault_dir) == []
    obsidian_daily_notes(tmp_path / "data" / "vault")
    async with running_brain(
        tmp_path, database_url, clock=Clock(LATE), BRAINBOT_TIMEZONE="America/Los_Angeles"
    ) as brain:
        (logged,) = await brain.engine.handle(message("/log fed the cat"))
        assert logged.text.startswith("Logged in Daily/2026-11-19.md")
        await brain.engine.handle(message("LOG: walked to the lake"))
        await brain.engine.handle(message("idea: heron logo"))
        daily = (brain.settings.vault_dir / "Daily/2026-11-19.md").read_text()
        assert daily == (
            "# Thursday 19 November\n\n## Plan\n\n## Log\n- 23:41 fed the cat\n"
            "- 23:41 walked to the lake\n\n## Captured\n- 23:41 [[heron-logo|Heron logo]]\n"
        )
        assert notes(brain.settings.vault_dir) == [
            "Daily/2026-11-19.md",
            "Templates/Day.md",
            "ideas/heron-logo.md",
        ]
