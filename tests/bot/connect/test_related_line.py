"""The Related line as Obsidian shows it: the last line of the note, wikilinks by file
name with the title shown, links already there kept and never doubled."""

from __future__ import annotations

from bot.connect.related import with_related
from storage.text.wikilinks import link_to


def test_the_line_goes_last_with_links_by_file_name() -> None:
    body = with_related("Feed the starter.\n", [("ideas/rye-starter.md", "Rye starter")])
    assert body == "Feed the starter.\n\nRelated: [[rye-starter|Rye starter]]\n"


def test_a_title_that_is_the_file_name_is_not_repeated() -> None:
    assert link_to("people/Sarah Kim.md", "Sarah Kim") == "[[Sarah Kim]]"


def test_brackets_and_pipes_in_a_title_cannot_break_the_link() -> None:
    assert link_to("ideas/a.md", "x | [y]") == "[[a|x - (y)]]"


def test_a_related_line_already_there_gains_only_new_links() -> None:
    body = "Feed the starter.\n\nRelated: [[rye-starter|Rye starter]], [[Baking]]\n"
    again = with_related(body, [("ideas/rye-starter.md", "Rye"), ("ideas/pizza.md", "Pizza")])
    line = "Related: [[rye-starter|Rye starter]], [[Baking]], [[pizza|Pizza]]"
    assert again == f"Feed the starter.\n\n{line}\n"
    assert with_related(again, [("ideas/pizza.md", "Pizza")]) == again


def test_an_empty_note_gets_only_the_line() -> None:
    assert with_related("", [("ideas/pizza.md", "pizza")]) == "Related: [[pizza]]\n"


def test_a_bracket_left_open_on_the_line_links_nothing() -> None:
    """`[[pizza` without its `]]` is no link (Obsidian shows it as text): a new link to
    pizza is still added, where the old reading took it for one already there."""
    body = "Dough.\n\nRelated: [[rye-starter|Rye starter]], [[pizza\n"
    assert with_related(body, [("ideas/pizza.md", "Pizza")]) == (
        "Dough.\n\nRelated: [[rye-starter|Rye starter]], [[pizza, [[pizza|Pizza]]\n"
    )
