"""`brainbot chat` without a model, through a pipe: questions are answered by a
search (its sources open by their number), and what is not a thought (a stray
number, a leave word, an unknown `fix:`, unreadable bytes) is answered and never
filed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import piped_chat
from tests.bot.helpers import git_log, notes

pytestmark = pytest.mark.slow  # starts brainbot processes


def test_questions_are_searched_and_junk_is_not_filed(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(
        tmp_path,
        database_url,
        [
            "idea: tomatoes want a sunny wall and daily water",
            "what did I write about tomatoes?",
            "1",  # the answer's source, opened by its number
            "where are my notes on quantum gardening",
            "99",
            "2",
            "fix: recipes",
            "what if we grew tomatoes on the roof",
            "exit",
            "idea: typed after leaving",
        ],
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert 'Notes about "tomatoes":' in out
    assert "- Tomatoes want a sunny wall and daily water (ideas/" in out
    # Why it matched, and the passage under the title with the words marked.
    assert ".md) · words\n    idea: **tomatoes** want a sunny wall" in out
    # One button per source: in the terminal a numbered choice (its label cut short).
    assert "[1] Tomatoes want a sunny wall and daily wa…   (type a number)" in out
    assert ".md) · found by words\nMatched: idea: **tomatoes** want a sunny wall" in out
    assert 'Nothing in your notes about "quantum gardening".' in out
    assert "That choice is no longer open, so I did nothing with '99'" in out
    assert "That choice is no longer open, so I did nothing with '2'" in out
    assert "'recipes' is not a category" in out
    vault = tmp_path / "data" / "vault"
    # Only the two thoughts were filed: not the questions, the numbers, "fix:" or "exit",
    # and nothing typed after leaving.
    assert notes(vault) == [
        "ideas/tomatoes-want-a-sunny-wall-and-daily-water.md",
        "ideas/what-if-we-grew-tomatoes-on-the-roof.md",
    ]
    assert len([s for s in git_log(vault) if s.startswith("create")]) == 2


def test_quit_command_ends_the_session(tmp_path: Path, database_url: str) -> None:
    done = piped_chat(tmp_path, database_url, ["/quit", "idea: never seen"])

    assert done.returncode == 0, done.stderr
    assert "Saved" not in done.stdout
    assert notes(tmp_path / "data" / "vault") == []


def test_invalid_utf8_is_replaced_and_the_chat_goes_on(tmp_path: Path, database_url: str) -> None:
    lines = b"\xff\xfe\n/list\nidea: caf\xc3\xa9 \xff menu\n/list ideas\n"

    done = piped_chat(tmp_path, database_url, lines)

    assert done.returncode == 0, done.stderr
    assert "UnicodeEncodeError" not in done.stderr
    assert "I could not read that line" in done.stdout
    assert "Nothing there yet." in done.stdout  # /list after the bad line was answered
    vault = tmp_path / "data" / "vault"
    (note,) = notes(vault)
    assert "café \ufffd menu" in (vault / note).read_text(encoding="utf-8")
    assert done.stdout.rstrip().endswith(f"({note})")
