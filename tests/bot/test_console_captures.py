"""Captures in `brainbot chat` (through a pipe) make files Obsidian and every OS take:
people named after themselves, emoji as UTF-8, no Windows device names, and a note
filed out of the inbox without the inbox's guesswork."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import piped_chat
from tests.bot.helpers import notes
from tests.bot.test_console_notes import fields_of

pytestmark = pytest.mark.slow  # starts brainbot processes


def test_captured_files_suit_obsidian_and_every_os(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(
        tmp_path,
        database_url,
        [
            "the blue one, maybe",  # no hint: the inbox, with category choices
            "3",  # ideas
            "[person] Sarah Kim - works on budget at ACME",
            "/get [[Sarah Kim]]",
            "idea: 🍅 tomato ketchup plan",
            "idea: con",
            "admin: NUL",
            "idea: com1",
        ],
    )

    assert done.returncode == 0, done.stderr
    assert "[3] ideas" in done.stdout
    assert "Filed in ideas: ideas/the-blue-one-maybe.md" in done.stdout
    vault = tmp_path / "data" / "vault"
    assert notes(vault) == [
        "admin/nul-note.md",
        "ideas/com1-note.md",
        "ideas/con-note.md",
        "ideas/the-blue-one-maybe.md",
        "ideas/tomato-ketchup-plan.md",
        "people/Sarah Kim.md",
    ]
    filed = fields_of(vault / "ideas/the-blue-one-maybe.md")
    assert not {"original_text", "suggested_category", "confidence"} & set(filed)
    person = vault / "people/Sarah Kim.md"
    assert fields_of(person)["title"] == "Sarah Kim"
    assert person.read_text(encoding="utf-8").endswith("\nworks on budget at ACME\n")
    assert "Sarah Kim (people/Sarah Kim.md)\n\nworks on budget at ACME" in done.stdout
    tomato = (vault / "ideas/tomato-ketchup-plan.md").read_text(encoding="utf-8")
    assert "title: 🍅 tomato ketchup plan\n" in tomato
    assert "\\U" not in tomato
