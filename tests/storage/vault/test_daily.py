"""Today's daily note as Obsidian's Daily notes plugin names and keeps it."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from storage.errors import UnsafePath
from storage.vault.daily import DailyNotes, daily_notes, moment_format, with_line

DAY = date(2026, 11, 5)


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("YYYY-MM-DD", "2026-11-05"),
        ("DD.MM.YYYY", "05.11.2026"),
        ("YYYY/MM/YYYY-MM-DD", "2026/11/2026-11-05"),
        ("dddd, MMMM Do YYYY", "Thursday, November 5th 2026"),
        ("[Week] ww, ddd D MMM YY", "Week 45, Thu 5 Nov 26"),
        ("YYYY-[Q]Q", "2026-Q4"),
    ],
)
def test_a_date_is_named_as_moment_js_names_it(fmt: str, name: str) -> None:
    assert moment_format(DAY, fmt) == name


def test_obsidian_s_settings_are_followed_and_the_setting_can_turn_them_off(
    tmp_path: Path,
) -> None:
    assert daily_notes(tmp_path, "auto") is None  # no daily notes here: off
    assert daily_notes(tmp_path, "journal") == DailyNotes("journal")
    (tmp_path / ".obsidian").mkdir()
    settings = {"folder": "Daily/", "format": "DD.MM.YYYY", "template": "Templates/Day"}
    (tmp_path / ".obsidian/daily-notes.json").write_text(json.dumps(settings))
    notes = daily_notes(tmp_path, "auto")
    assert notes == DailyNotes("Daily", "DD.MM.YYYY", "Templates/Day")
    assert notes.path(DAY) == "Daily/05.11.2026.md"
    assert daily_notes(tmp_path, "off") is None
    (tmp_path / ".obsidian/daily-notes.json").write_text("{not json")
    assert daily_notes(tmp_path, "auto") == DailyNotes("")  # Obsidian's defaults
    assert DailyNotes("").path(DAY) == "2026-11-05.md"


def test_a_daily_note_outside_the_vault_is_refused() -> None:
    with pytest.raises(UnsafePath):
        DailyNotes("../elsewhere").path(DAY)


def test_a_line_joins_the_end_of_its_section_and_the_rest_stays() -> None:
    note = "# Thursday\n\n## Captured\n- 08:00 [[a]]\n\n## Tasks\n- [ ] call Bob\n"
    assert with_line(note, "- 09:41 [[b]]", "## Captured", "") == (
        "# Thursday\n\n## Captured\n- 08:00 [[a]]\n- 09:41 [[b]]\n\n## Tasks\n- [ ] call Bob\n"
    )
    assert with_line("# Thursday\n", "- 09:41 [[b]]", "## Captured", "") == (
        "# Thursday\n\n## Captured\n- 09:41 [[b]]\n"
    )
    assert with_line(None, "- 09:41 [[b]]", "## Captured", "# {{day}}\n") == (
        "# {{day}}\n\n## Captured\n- 09:41 [[b]]\n"
    )
    assert with_line(None, "- 1", "## Captured", "") == "## Captured\n- 1\n"
    # A deeper heading inside the section stays inside it.
    deep = "## Captured\n### morning\n- 1\n## Other\n"
    assert (
        with_line(deep, "- 2", "## Captured", "")
        == "## Captured\n### morning\n- 1\n- 2\n## Other\n"
    )
