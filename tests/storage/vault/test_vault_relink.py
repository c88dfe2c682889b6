"""Moves and renames keep links: every form Obsidian writes, checked in the files,
in git's log and through an undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.errors import NothingToChange, StaleEdit, UnsafePath
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, commit_count, git, make_vault, outside_commit

GREEN = """---
title: Green tea
---
Steep at 80°C. With [[Ann]], see [the others](tea.md) and [[tea]].
"""
ANN_NOTE = """---
title: Ann
---
plain [[green tea]] and alias [[Green Tea|the green one]]
heading [[green tea#Brewing]] and both [[green tea#Brewing|how to brew]]
block [[green tea#^abc1]] and embed ![[green tea]]
path [[ideas/green tea]] and file [[green tea.md]]
md [notes](../ideas/green%20tea.md "Tea notes") and [b](<../ideas/green tea.md#Brewing>)
root [r](ideas/green%20tea.md) | table [[green tea\\|cell]]
teas [[ideas/tea]] [[projects/tea]] [[Ann]]
code `[[green tea]]` stays
```
[[green tea]] and [x](../ideas/green%20tea.md)
```
"""
TODO = "- [ ] buy [[green tea]]\n"
PLAN = "We drink green tea while we plan; no link here.\n"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    vault = make_vault(tmp_path / "vault")
    notes = {
        "ideas/green tea.md": GREEN,
        "ideas/tea.md": "Black and oolong.\n",
        "projects/tea.md": "A tea shop.\n",
        "people/Ann.md": ANN_NOTE,
        "admin/todo.md": TODO,
        "projects/plan.md": PLAN,
    }
    for rel, text in notes.items():
        (vault.root / rel).write_text(text, encoding="utf-8")
    outside_commit(vault.root, "notes")
    return vault


def read(vault: Vault, rel: str) -> str:
    return (vault.root / rel).read_text(encoding="utf-8")


def last_commit_files(vault: Vault) -> list[str]:
    return sorted(
        git(vault.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").splitlines()
    )


def test_a_rename_rewrites_every_form_of_link_in_one_commit_and_undo_restores_it(
    vault: Vault,
) -> None:
    before = commit_count(vault.root)
    written = vault.rename("ideas/green tea.md", "Matcha", None, author=ANN)

    assert written.entry is not None and written.entry.path == "ideas/matcha.md"
    assert written.entry.title == "Matcha"
    assert not (vault.root / "ideas/green tea.md").exists()
    assert read(vault, "people/Ann.md") == ANN_NOTE.replace(
        "plain [[green tea]] and alias [[Green Tea|the green one]]",
        "plain [[matcha]] and alias [[matcha|the green one]]",
    ).replace(
        "heading [[green tea#Brewing]] and both [[green tea#Brewing|how to brew]]",
        "heading [[matcha#Brewing]] and both [[matcha#Brewing|how to brew]]",
    ).replace(
        "block [[green tea#^abc1]] and embed ![[green tea]]",
        "block [[matcha#^abc1]] and embed ![[matcha]]",
    ).replace(
        "path [[ideas/green tea]] and file [[green tea.md]]",
        "path [[matcha]] and file [[matcha.md]]",
    ).replace(
        'md [notes](../ideas/green%20tea.md "Tea notes") and [b](<../ideas/green tea.md#Brewing>)',
        'md [notes](../ideas/matcha.md "Tea notes") and [b](<../ideas/matcha.md#Brewing>)',
    ).replace(
        "root [r](ideas/green%20tea.md) | table [[green tea\\|cell]]",
        "root [r](ideas/matcha.md) | table [[matcha\\|cell]]",
    )
    # Code is not a link: both the inline code and the fenced block are as they were.
    assert "code `[[green tea]]` stays" in read(vault, "people/Ann.md")
    assert "```\n[[green tea]] and [x](../ideas/green%20tea.md)\n```" in read(
        vault, "people/Ann.md"
    )
    assert read(vault, "admin/todo.md") == "- [ ] buy [[matcha]]\n"
    assert read(vault, "projects/plan.md") == PLAN
    assert "title: Matcha" in read(vault, "ideas/matcha.md")

    assert commit_count(vault.root) == before + 1
    assert last_commit_files(vault) == [
        "admin/todo.md",
        "ideas/green tea.md",
        "ideas/matcha.md",
        "people/Ann.md",
    ]
    subject = git(vault.root, "log", "-1", "--format=%s|%an")
    assert (
        subject.strip()
        == "rename ideas/green tea.md -> ideas/matcha.md (links in 2 notes)|Ann Example"
    )

    vault.undo(written.change.commit, author=ANN)
    assert read(vault, "ideas/green tea.md") == GREEN
    assert read(vault, "people/Ann.md") == ANN_NOTE
    assert read(vault, "admin/todo.md") == TODO
    assert not (vault.root / "ideas/matcha.md").exists()


def test_a_move_rewrites_only_the_links_it_would_break(vault: Vault) -> None:
    written = vault.move("ideas/green tea.md", "projects", author=ANN)

    assert written.change.paths == (
        "ideas/green tea.md",
        "people/Ann.md",
        "projects/green tea.md",
    )
    ann = read(vault, "people/Ann.md")
    # A bare name still finds the note wherever it is: left as written.
    assert "plain [[green tea]] and alias [[Green Tea|the green one]]" in ann
    assert "path [[green tea]] and file [[green tea.md]]" in ann
    assert 'md [notes](../projects/green%20tea.md "Tea notes")' in ann
    assert "[b](<../projects/green tea.md#Brewing>)" in ann
    assert "root [r](projects/green%20tea.md)" in ann
    assert "teas [[ideas/tea]] [[projects/tea]] [[Ann]]" in ann
    assert read(vault, "admin/todo.md") == TODO
    # The moved note's own links still mean what they meant from its old folder.
    moved = read(vault, "projects/green tea.md")
    assert "see [the others](../ideas/tea.md) and [[ideas/tea]]." in moved
    assert "With [[Ann]]," in moved


def test_moving_one_of_two_same_named_notes_keeps_a_path_where_one_is_needed(
    vault: Vault,
) -> None:
    vault.move("ideas/tea.md", "admin", author=ANN)

    ann = read(vault, "people/Ann.md")
    assert "teas [[admin/tea]] [[projects/tea]] [[Ann]]" in ann
    green = read(vault, "ideas/green tea.md")
    assert "see [the others](../admin/tea.md) and [[admin/tea]]." in green


def test_the_preview_lists_the_notes_and_a_change_since_makes_the_write_fail(
    vault: Vault,
) -> None:
    preview = vault.preview_rename("ideas/green tea.md", "Matcha", "matcha-latte.md")
    assert preview.target == "ideas/matcha-latte.md"
    assert preview.relinked == ("admin/todo.md", "people/Ann.md")
    assert "+- [ ] buy [[matcha-latte]]" in preview.diff

    (vault.root / "admin/todo.md").write_text(TODO + "- [ ] and [[green tea]] cups\n")
    before = commit_count(vault.root)
    with pytest.raises(StaleEdit):
        vault.rename(
            "ideas/green tea.md",
            "Matcha",
            "matcha-latte.md",
            expected_hash=preview.content_hash,
            author=ANN,
        )
    assert commit_count(vault.root) == before
    assert read(vault, "ideas/green tea.md") == GREEN
    assert "[[green tea]] cups" in read(vault, "admin/todo.md")


@pytest.mark.parametrize(
    ("file_name", "problem"),
    [
        ("../people/x", "not a path"),
        ("sub/x", "not a path"),
        ("x.txt", ".md"),
        ("tea", "already exists"),
        ("TEA.md", "already exists"),
        (".hidden", "hidden"),
    ],
)
def test_a_rename_to_a_bad_or_taken_name_is_refused_and_changes_nothing(
    vault: Vault, file_name: str, problem: str
) -> None:
    before = commit_count(vault.root)
    with pytest.raises(UnsafePath) as refused:
        vault.rename("ideas/green tea.md", "Other", file_name, author=ANN)
    assert problem in str(refused.value)
    assert commit_count(vault.root) == before
    assert read(vault, "ideas/green tea.md") == GREEN


def test_a_rename_to_the_same_title_and_name_changes_nothing(vault: Vault) -> None:
    with pytest.raises(NothingToChange):
        vault.rename("ideas/green tea.md", "Green tea", "green tea", author=ANN)
