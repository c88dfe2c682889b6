"""Notes named as a person names them, in `brainbot chat` through a pipe, on a vault
imported from Obsidian (folders and file names with spaces, aliases, wikilinks)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.bot.console_support import piped_chat
from tests.bot.helpers import notes

pytestmark = pytest.mark.slow  # starts brainbot processes

OBSIDIAN = {
    "User interface/Tabs.md": "# Tabs\n\nTabs across the top.\n",
    "People/Sarah Kim.md": "---\naliases: [SK]\n---\nWorks on the budget.\n",
    "Meeting notes.md": "Agenda one.\n",
    "Work/Meeting notes.md": "Agenda two.\n",
    "Shopping list.md": "- eggs\n",
    "Daily/2024-01-01.md": "Lunch with [[Sarah Kim]].\n",
    "Code.md": "```python\n# Dog\nclass Dog: ...\n```\n\n# Real title\n",
    "Auth flow.md": "~~~\n# Login\n~~~\nHow the login works.\n",
    "Template.md": "# {{title}}\n\n{{date}}\n",
    **{f"Filler {n}.md": f"Filler number {n}.\n" for n in range(1, 5)},
}


def imported_vault(tmp_path: Path, database_url: str) -> Path:
    folder = tmp_path / "obsidian"
    for rel, text in OBSIDIAN.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    done = piped_chat(tmp_path, database_url, [], "import", str(folder))
    assert done.returncode == 0, done.stderr
    return tmp_path / "data" / "vault"


def fields_of(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    loaded = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(loaded, dict)
    return loaded


def test_notes_are_found_by_title_alias_link_and_path_with_spaces(
    tmp_path: Path, database_url: str
) -> None:
    vault = imported_vault(tmp_path, database_url)

    done = piped_chat(
        tmp_path,
        database_url,
        [
            '/get "Meeting notes"',  # two notes have this title: a numbered choice
            "1",
            "/get [[Sarah Kim]]",
            "/get SK",
            "/move User interface/Tabs.md admin",  # a path with a space
            "3",
            "/append Shopping list buy milk",  # runs at once: [5] Undo
            "/tag Code python",  # [6] Undo
            "3",  # the move's Approve again: that choice is gone
            "/backlinks Sarah Kim",
            "/delete nothing like this",
        ],
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert 'Several notes match "Meeting notes". Which one?' in out
    assert "Meeting notes (Meeting notes.md)" in out
    assert "Meeting notes (Work/Meeting notes.md)" in out
    assert "Agenda one." in out or "Agenda two." in out
    assert out.count("Works on the budget.") == 2  # by [[link]] and by alias
    assert "Usage" not in out
    assert "refused path" not in out
    assert "That choice is no longer open; nothing changed." in out
    assert 'Updated Shopping list.md: added "buy milk".\n[5] Undo' in out
    assert "Updated Code.md: tagged #python.\n[6] Undo" in out
    assert "- 2024-01-01 (Daily/2024-01-01.md)" in out
    assert 'I found no note called "nothing like this"' in out
    assert "admin/Tabs.md" in notes(vault)
    assert "User interface/Tabs.md" not in notes(vault)
    assert (vault / "Shopping list.md").read_text(encoding="utf-8").rstrip().endswith("buy milk")
    assert fields_of(vault / "Code.md")["tags"] == ["python"]


def test_titles_skip_code_and_templates_and_long_lists_page(
    tmp_path: Path, database_url: str
) -> None:
    imported_vault(tmp_path, database_url)

    done = piped_chat(tmp_path, database_url, ["/list", "/list 2"])

    assert done.returncode == 0, done.stderr
    first, second = done.stdout.split("… and 3 more: /list 2\n")
    assert first.count("\n- ") + first.startswith("- ") == 10
    assert second.count("- ") == 3
    out = done.stdout
    assert "- Real title (Code.md)" in out
    assert "- Auth flow (Auth flow.md)" in out  # the file name: the heading is in code
    assert "- Template (Template.md)" in out
    assert "Dog" not in out and "Login" not in out
    assert "{{title}}" not in out
