"""`/links`, `/get NOTE#Heading` and `/random` in `brainbot chat` through a pipe, on a
vault imported from Obsidian (a heading in a code block, a link to a note not written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import piped_chat
from tests.bot.test_console_notes import fields_of

pytestmark = pytest.mark.slow  # starts brainbot processes

OBSIDIAN = {
    "Garden.md": (
        "---\ntags: [garden]\n---\n# Garden\n\nWith [[Sam Lee]] and [[Seed Bank]].\n\n"
        "## Tasks\n- dig\n\n```md\n## Not a heading\n```\n\n## Harvest\nBeans.\n"
    ),
    "People/Sam Lee.md": "Neighbour; lends tools.\n",
    "Done thing.md": "---\nstatus: done\ntags: [garden]\n---\nFinished.\n",
}


def test_links_a_section_and_a_random_note_from_the_terminal(
    tmp_path: Path, database_url: str
) -> None:
    folder = tmp_path / "obsidian"
    for rel, text in OBSIDIAN.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    imported = piped_chat(tmp_path, database_url, [], "import", str(folder))
    assert imported.returncode == 0, imported.stderr

    done = piped_chat(
        tmp_path,
        database_url,
        [
            "/help",
            "/links Garden",
            "/get Garden#tasks",
            "/get Garden#Not a heading",
            "/random #garden",
        ],
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "/links NOTE  notes a note links to" in out and "/random [#TAG|CATEGORY]" in out
    assert (
        "Garden.md links to 2 notes (1 missing):\n"
        "- Sam Lee (People/Sam Lee.md)\n"
        "- Seed Bank (missing: no note yet)"
    ) in out
    assert "## Tasks\n- dig\n\n```md\n## Not a heading\n```" in out
    assert "Sorry: no heading 'Not a heading' in Garden.md; its headings: # Garden, ## Tasks" in out
    assert out.count("Garden (Garden.md)") == 2  # the section, and the only open #garden note
    assert "Finished." not in out
    assert fields_of(tmp_path / "data" / "vault" / "Garden.md")["tags"] == ["garden"]
