"""Which notes a person's words name, and where a timeline line goes: the rules a
person would notice, on a small fixed set of people and projects (bench/timeline.py
measures them on 200 labelled captures)."""

from __future__ import annotations

import pytest

from bot.connect.named import Named, Names
from bot.connect.timeline import with_timeline_line

NOTES = [
    Named("people/Sarah Kim.md", "Sarah Kim", "people", ("Sare",)),
    Named("people/Sarah Lopez.md", "Sarah Lopez", "people"),
    Named("people/Will Turner.md", "Will Turner", "people"),
    Named("people/Zoë Méndez.md", "Zoë Méndez", "people"),
    Named("people/Mark Chen.md", "Mark Chen", "people"),
    Named("projects/book-club.md", "Book club", "projects"),
    Named("projects/website-relaunch.md", "Website relaunch", "projects"),
]


def named(text: str, *, first_names: bool = True) -> list[tuple[str, list[str]]]:
    found = Names(NOTES, first_names=first_names).find(text)
    return [(m.said, [n.title for n in m.notes]) for m in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lunch with sarah kim", [("sarah kim", ["Sarah Kim"])]),
        ("zoe mendez sent the plan", [("zoe mendez", ["Zoë Méndez"])]),
        ("Ask Sare about it", [("Sare", ["Sarah Kim"])]),
        ("Zoë's idea", [("Zoë", ["Zoë Méndez"])]),
        ("[[people/sarah-kim|Sarah]] called", [("[[people/sarah-kim|Sarah]]", ["Sarah Kim"])]),
        ("Talked to [[Sarah Kim]]", [("[[Sarah Kim]]", ["Sarah Kim"])]),
        ("Sarah Kim and Sarah met", [("Sarah Kim", ["Sarah Kim"])]),
        ("Sarah said hi", [("Sarah", ["Sarah Kim", "Sarah Lopez"])]),
        ("and then Will joined", [("Will", ["Will Turner"])]),
        ("the website relaunch slips", [("website relaunch", ["Website relaunch"])]),
    ],
)
def test_names_found(text: str, expected: list[tuple[str, list[str]]]) -> None:
    assert named(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "run `grep 'Sarah Kim' notes`",
        "```\nowner: Zoë Méndez\n```",
        "see https://example.org/people/sarah-kim for the chart",
        "mail sarah.kim@example.com today",
        "portfolio at zoe-mendez.dev",
        "I will call the bank",
        "Will you call the bank?",
        "Mark the date: review on the 3rd",
        "Sarah-Jane brought bread",
        "Reading Mark Twain again",
        "her book club meets Thursdays",
        "the neighbours' website relaunch",
        "Kim from accounting called",
    ],
)
def test_not_a_name_here(text: str) -> None:
    assert named(text) == []


def test_a_lone_first_name_counts_only_when_chosen() -> None:
    assert named("Zoë called", first_names=False) == []
    assert named("Zoë called") == [("Zoë", ["Zoë Méndez"])]


def test_the_capture_itself_is_not_a_mention() -> None:
    found = Names(NOTES).find("Sarah Kim - works on budget", leave_out={"people/Sarah Kim.md"})
    assert found == []
    # "Sarah" there is the new Sarah herself, not the other one
    sarah = Names(NOTES).find("Sarah's gym buddy", leave_out={"people/Sarah Lopez.md"})
    assert sarah == []


def test_a_line_goes_newest_first_under_the_heading_made_when_missing() -> None:
    body = "About Sarah."
    first = with_timeline_line(body, "- 2026-11-20 [[a|A]]")
    assert first == "About Sarah.\n\n## Timeline\n- 2026-11-20 [[a|A]]\n"
    second = with_timeline_line(first, "- 2026-11-23 [[b|B]]")
    assert second == "About Sarah.\n\n## Timeline\n- 2026-11-23 [[b|B]]\n- 2026-11-20 [[a|A]]\n"
    assert with_timeline_line(second, "- 2026-11-20 [[a|A]]") is None  # there already


def test_a_line_keeps_to_its_section_and_its_date() -> None:
    body = "## Timeline\n\n- 2026-11-25 [[c]]\n- 2026-11-10 [[a]]\n\n## Notes\n- 2026-01-01 x\n"
    out = with_timeline_line(body, "- 2026-11-20 [[b]]")
    assert out == (
        "## Timeline\n\n- 2026-11-25 [[c]]\n- 2026-11-20 [[b]]\n- 2026-11-10 [[a]]\n\n"
        "## Notes\n- 2026-01-01 x\n"
    )
    oldest = with_timeline_line(body, "- 2026-01-02 [[z]]")
    assert oldest is not None
    assert oldest.index("[[z]]") < oldest.index("## Notes")
    assert oldest.index("[[a]]") < oldest.index("[[z]]")


@pytest.mark.parametrize(
    "noise", ["Sarah-", "a.", "a@", "[[nobody]] ", "`", "[[", "www.x "], ids=repr
)
def test_a_message_written_to_stall_the_finder_is_read_in_one_pass(noise: str) -> None:
    """100 kB of one piece repeated (a look at every letter of a run, or a copy of the
    text for every link, took a minute and a half here): the name after it is found."""
    text = noise * (100_000 // len(noise)) + " lunch with Sarah Kim"
    assert named(text)[-1] == ("Sarah Kim", ["Sarah Kim"])


def test_addresses_are_still_no_names() -> None:
    assert named("mail sarah.kim@example.org or see sarah-kim.com/about") == []
    assert named("https://example.org/Sarah/Kim and Sarah Kim") == [("Sarah Kim", ["Sarah Kim"])]
