"""What a link means, and what it becomes, by Obsidian's rules (no files needed)."""

from __future__ import annotations

import pytest

from storage.vault.relink import Notes, Relocation, relinked

NOTES = Notes(
    [
        "ideas/tea.md",
        "projects/tea.md",
        "projects/old/tea.md",
        "Kyoto Trip.md",
        "ideas/café.md",
        "people/Ann.md",
    ]
)


@pytest.mark.parametrize(
    ("target", "source", "meant"),
    [
        ("kyoto trip", "people/Ann.md", "Kyoto Trip.md"),  # case does not matter
        ("Kyoto Trip.md", "people/Ann.md", "Kyoto Trip.md"),
        ("ideas/tea", "people/Ann.md", "ideas/tea.md"),  # a vault path
        ("old/tea", "people/Ann.md", "projects/old/tea.md"),  # a path's tail
        ("tea", "projects/plan.md", "projects/tea.md"),  # same folder first
        ("tea", "people/Ann.md", "ideas/tea.md"),  # else fewest folders, then by path
        ("../ideas/tea", "people/Ann.md", "ideas/tea.md"),
        ("nothing", "people/Ann.md", None),
        ("", "people/Ann.md", None),
    ],
)
def test_a_wikilink_means_what_obsidian_finds(target: str, source: str, meant: str | None) -> None:
    assert NOTES.wikilink(target, source) == meant


@pytest.mark.parametrize(
    ("target", "source", "meant"),
    [
        ("../ideas/tea.md", "people/Ann.md", ("ideas/tea.md", "relative")),
        ("ideas/tea.md", "people/Ann.md", ("ideas/tea.md", "root")),
        ("/projects/old/tea.md", "people/Ann.md", ("projects/old/tea.md", "absolute")),
        ("café.md", "ideas/tea.md", ("ideas/café.md", "relative")),
        ("../../x.md", "people/Ann.md", None),
        ("https://example.org/a.md", "people/Ann.md", None),
        ("../ideas/tea.png", "people/Ann.md", None),
    ],
)
def test_a_markdown_link_means_a_path_from_its_note_or_the_root(
    target: str, source: str, meant: tuple[str, str] | None
) -> None:
    assert NOTES.markdown(target, source) == meant


def test_new_links_use_the_shortest_path_that_is_sure() -> None:
    assert NOTES.shortest_link("Kyoto Trip.md") == "Kyoto Trip"
    assert NOTES.shortest_link("ideas/tea.md") == "ideas/tea"
    assert NOTES.shortest_link("projects/old/tea.md") == "old/tea"


def test_encoding_of_a_markdown_link_follows_how_it_was_written() -> None:
    move = Relocation("ideas/café.md", "projects/my café.md", NOTES)
    text = "[a](caf%C3%A9.md) [b](café.md) [c](<café.md> 'T')"
    assert relinked(text, "ideas/tea.md", move) == (
        "[a](../projects/my%20caf%C3%A9.md) [b](../projects/my%20café.md) "
        "[c](<../projects/my café.md> 'T')"
    )


def test_links_to_other_notes_and_links_in_code_are_left_alone() -> None:
    move = Relocation("Kyoto Trip.md", "projects/kyoto.md", NOTES)
    text = "[[Ann]] [[nowhere]] `[[Kyoto Trip]]`\n~~~\n[[Kyoto Trip]]\n~~~\n[[Kyoto Trip]]\n"
    assert relinked(text, "people/Ann.md", move) == (
        "[[Ann]] [[nowhere]] `[[Kyoto Trip]]`\n~~~\n[[Kyoto Trip]]\n~~~\n[[kyoto]]\n"
    )


def test_a_note_moving_beside_a_same_named_one_keeps_other_links_on_theirs() -> None:
    notes = Notes(["ideas/tea.md", "admin/tea-plan.md", "admin/x.md"])
    move = Relocation("admin/tea-plan.md", "projects/tea.md", notes)
    # From projects/, a bare [[tea]] would now find the moved note first.
    assert relinked("[[tea]] and [[tea-plan]]", "projects/y.md", move) == (
        "[[ideas/tea]] and [[projects/tea]]"
    )
