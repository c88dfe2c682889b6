"""One grammar of `[[links]]`, read and written as Obsidian does, held against every case
the eight grammars it replaced were used for: backlinks and relinking (any part, an
embed, a table's `\\|`), mentions of people, note names a person types, citations in an
answer, the Related line, the search syntax, typed relations, defused page text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storage.text import wikilinks
from storage.text.wikilinks import find, inert, leading, link_to, linkable, read, targets, unlinked


def _parts(text: str) -> list[tuple[str, str | None, str | None, bool]]:
    return [(link.target, link.heading, link.shown, link.embed) for link in find(text)]


def test_every_part_of_a_link_is_read() -> None:
    text = "See [[Tea]], [[ideas/tea.md#Brewing|how to]], ![[photo.jpg]] and [[Tea#^b15]]."
    assert _parts(text) == [
        ("Tea", None, None, False),
        ("ideas/tea.md", "Brewing", "how to", False),
        ("photo.jpg", None, None, True),
        ("Tea", "^b15", None, False),
    ]
    first = next(find(text))
    assert text[first.start : first.end] == "[[Tea]]"
    assert text[first.inner_start : first.inner_end] == "Tea"


def test_a_table_rows_escaped_bar_belongs_to_neither_part() -> None:
    assert _parts("| [[tea\\|Green tea]] | [[tea#Brew\\|b]] |") == [
        ("tea", None, "Green tea", False),
        ("tea", "Brew", "b", False),
    ]


def test_a_link_within_the_same_note_has_no_target() -> None:
    assert _parts("[[#Tasks]]") == [("", "Tasks", None, False)]
    assert targets("[[#Tasks]] and [[Tea]]") == ["Tea"]


def test_a_link_never_spans_lines() -> None:
    # bot/tools/note_names.py's grammar read "[[Sarah\nKim]]" as a link to "Sarah\nKim".
    assert targets("Met [[Sarah\nKim]] today") == []
    assert read("[[Sarah\nKim]]") is None


def test_a_link_needs_its_closing_brackets() -> None:
    # bot/connect/related.py's grammar read "[[pizza" (no `]]`) as a link to pizza.
    assert targets("Related: [[rye|Rye]], [[pizza") == ["rye"]
    assert targets("[[a]") == [] and targets("[[]]") == []


def test_brackets_inside_are_no_link_but_the_innermost_is() -> None:
    assert targets("[[a [b] c]]") == []
    assert targets("[[[Tea]]]") == ["Tea"]


def test_an_escaped_opening_is_text() -> None:
    assert targets(r"\[[Tea]] and \[\[Tea]]") == []
    assert _parts(r"\![[photo.jpg]]") == [("photo.jpg", None, None, False)]


def test_a_whole_link_and_a_leading_link_as_people_type_them() -> None:
    link = read("  [[Sarah Kim|Sarah]] ")
    assert link is not None and link.target == "Sarah Kim" and link.label == "Sarah"
    assert read("[[Sarah Kim]] rest") is None
    first = leading("[[My note]] add this")
    assert first is not None and first.target == "My note" and first.end == len("[[My note]]")
    assert unlinked("Talked to [[Sarah Kim|Sarah]] about [[Budget#Q3]]") == (
        "Talked to Sarah about Budget"
    )


def test_a_written_link_names_the_file_and_shows_the_title() -> None:
    assert link_to("ideas/rye-starter.md", "Rye starter") == "[[rye-starter|Rye starter]]"
    assert link_to("people/Sarah Kim.md", "Sarah Kim") == "[[Sarah Kim]]"
    assert link_to("ideas/tea.md") == "[[tea]]"
    assert wikilinks.wikilink("attachments/a b.pdf", embed=True) == "![[attachments/a b.pdf]]"
    # A file's own spaces are its name's: only a line break could break the link.
    assert wikilinks.wikilink("attachments/My  scan.pdf") == "[[attachments/My  scan.pdf]]"


def test_nothing_written_into_a_link_can_break_it() -> None:
    written = wikilinks.wikilink("Kim | ACME", "Sarah [work] |\nteam")
    assert written == "[[Kim - ACME|Sarah (work) - team]]"
    assert [(link.target, link.shown) for link in find(written)] == [
        ("Kim - ACME", "Sarah (work) - team")
    ]
    assert wikilinks.wikilink("C# tips") == "[[C- tips]]"
    assert not linkable("C# tips") and not linkable("a|b") and not linkable("  ")
    assert linkable("Sarah Kim") and linkable("people/sarah-kim")
    with pytest.raises(ValueError, match="names no note"):
        wikilinks.wikilink(" \n")


@given(st.text(alphabet="ab |[]#\n\\!^", max_size=12), st.text(alphabet="xy |[]#\n", max_size=12))
def test_a_written_link_reads_back_as_one_link(target: str, shown: str) -> None:
    written = wikilinks.wikilink("a" + target, shown)
    found = list(find(written))
    assert len(found) == 1 and (found[0].start, found[0].end) == (0, len(written))


@given(st.text(alphabet="[]!\\ab|#\n", max_size=30))
def test_someone_elses_text_made_inert_links_nowhere(text: str) -> None:
    assert list(find(inert(text))) == []
    assert inert("[[a") == r"\[\[a" and inert("![[x]]") == r"!\[\[x]]"


def test_embeds_are_left_out_of_the_persons_words() -> None:
    assert wikilinks.without_embeds("Look ![[a.jpg]] at [[Tea]]") == "Look  at [[Tea]]"


@given(st.text(alphabet="[]!\\ab|#\n", max_size=30))
def test_one_pass_reads_the_same_links_and_words_as_two(text: str) -> None:
    shown, found = wikilinks.unlinked_and_links(text)
    assert shown == unlinked(text) and found == list(find(text))
