"""A note's sections as Obsidian reads them: headings outside code, a section running to
the next heading of its level or higher, text added where a person expects it."""

from __future__ import annotations

import pytest

from storage.vault.sections import (
    SectionError,
    edited,
    find_section,
    headings,
    only_adds,
    prepended,
)

NOTE = (
    "# Week\n\nIntro.\n\n"
    "## Tasks\n- [ ] milk\n- [ ] eggs\n\n"
    "### Someday\n- learn Go\n\n"
    "```bash\n## not a heading\n```\n\n"
    "## Notes ##\nA thought.\n"
)


def test_headings_in_code_are_not_headings_and_a_section_holds_its_subsections() -> None:
    assert headings(NOTE) == ["# Week", "## Tasks", "### Someday", "## Notes"]
    tasks = find_section(NOTE, "tasks")
    assert tasks is not None
    assert tasks.text(NOTE) == (
        "## Tasks\n- [ ] milk\n- [ ] eggs\n\n### Someday\n- learn Go\n\n"
        "```bash\n## not a heading\n```"
    )
    assert find_section(NOTE, "not a heading") is None
    notes = find_section(NOTE, "## NOTES")  # level marks, case and closing #s do not matter
    assert notes is not None and notes.content(NOTE) == "A thought.\n"


def test_a_name_that_several_headings_share_is_told_apart_by_its_parent() -> None:
    body = "## Mon\n### Tasks\n- a\n## Tue\n### Tasks\n- b\n"
    with pytest.raises(SectionError, match="2 headings are called 'Tasks'"):
        find_section(body, "Tasks")
    tue = find_section(body, "Tue#Tasks")
    assert tue is not None and tue.content(body) == "- b\n"


def test_appending_a_list_item_stays_in_the_list_before_the_next_section() -> None:
    body = "## Shopping\n- milk\n- eggs\n## Ideas\nTea.\n"
    new = edited(body, "Shopping", append="- bread")
    assert new == "## Shopping\n- milk\n- eggs\n- bread\n\n## Ideas\nTea.\n"
    assert only_adds(body, new)


def test_prepending_puts_text_right_under_the_heading() -> None:
    body = "## Log\nOlder entry.\n"
    new = edited(body, "Log", prepend="Newest entry.")
    assert new == "## Log\nNewest entry.\n\nOlder entry.\n"
    assert only_adds(body, new)


def test_replacing_a_section_keeps_the_others_and_is_no_mere_addition() -> None:
    new = edited(NOTE, "Tasks", replace="- [ ] bread\n")
    assert new == "# Week\n\nIntro.\n\n## Tasks\n- [ ] bread\n\n## Notes ##\nA thought.\n"
    assert not only_adds(NOTE, new)


def test_a_missing_section_is_made_at_the_end_at_the_level_asked() -> None:
    assert edited("Text.\n", "Links", append="[[Tea]]") == "Text.\n\n## Links\n[[Tea]]\n"
    assert edited("Text.", "### Later", append="- x") == "Text.\n\n### Later\n- x\n"
    assert edited("", "Tasks", append="- a") == "## Tasks\n- a\n"


def test_prepending_to_a_note_goes_under_its_title() -> None:
    assert prepended("# Title\n\nBody.\n", "First.") == "# Title\n\nFirst.\n\nBody.\n"
    assert prepended("Body.\n", "First.") == "First.\n\nBody.\n"


def test_only_adds_tells_an_insertion_from_a_rewrite() -> None:
    assert only_adds("a\nb\n", "a\nx\nb\n")
    assert not only_adds("a\nb\n", "a\nc\n")
    assert not only_adds("a\n", "a\n\n")  # nothing but a blank line
