"""Person names and possessives read one way wherever a thought is filed: the title of
a new person page, a possessive title, the words before a project, a name after "met"."""

from __future__ import annotations

import pytest

from storage.text.person_names import (
    Mention,
    full_name_after_cue,
    is_person_name,
    named,
    possessive_names,
    possessive_title,
    someone_elses,
)


def test_who_a_text_may_be_about_is_read_in_one_pass() -> None:
    text = "Talked to [[Sarah Kim|Sarah]] and [[]] of Tom's move; met paul, Ann's, lunch with Bea"
    found = named(text)
    assert found.links == (("Sarah Kim", "[[Sarah Kim|Sarah]]"),)  # the empty link is none
    assert found.full_name is None  # "Sarah and": one capitalised word after the cue
    # Capitalised only ("paul" is not taken for a name), possessives first.
    assert found.first_names == ("Tom", "Ann", "Bea")
    assert named("Met Sarah Kim at the meetup").full_name == "Sarah Kim"


@pytest.mark.parametrize(
    ("title", "whose"),
    [
        ("Sarah's Birthday", "Sarah"),
        ("Sarah\u2019s birthday", "Sarah"),
        ("Mary Jane's party", "Mary Jane"),
        ("James' new job", "James"),
        # An apostrophe inside a name is the name's: the model's mending read no
        # possessive here, the note-filing without a model read O'Brien's.
        ("O'Brien's Birthday", "O'Brien"),
        ("Sarah Kim", None),
        ("Don't forget", None),
    ],
)
def test_a_possessive_title_is_about_someone_s_thing(title: str, whose: str | None) -> None:
    assert possessive_title(title) == whose


def test_possessives_in_running_text() -> None:
    assert possessive_names("Sarah's and O'Brien\u2019s dogs, not it`s") == ["Sarah", "O'Brien"]


@pytest.mark.parametrize(
    ("name", "person"),
    [
        ("Sarah Kim", True),
        ("Zoë O'Neill", True),
        ("Jean-Luc Picard", True),
        ("Ölaf Berg", True),
        ("ölaf berg", False),
        ("Sarah Kim | ACME", False),
        ("A B C D E", False),
        ("Sarah  Kim", False),
    ],
)
def test_a_person_s_name_as_a_title(name: str, person: bool) -> None:
    assert is_person_name(name) is person


def test_the_words_before_a_name_may_make_it_someone_else_s() -> None:
    assert someone_elses("her ") and someone_elses("the neighbours' ")
    assert someone_elses("Sarah\u2019s ") and not someone_elses("my ")


def test_a_full_name_after_a_word_of_meeting() -> None:
    assert full_name_after_cue("Met Sarah Kim. Then lunch") == "Sarah Kim"
    assert full_name_after_cue("met Sarah at the meetup") is None


def test_one_mention_for_one_note_several_or_none() -> None:
    assert Mention("Sarah", ("a", "b")).ambiguous
    assert Mention("Sarah", ("a",)).note == "a"
    assert Mention("Sarah Kim", (), "Sarah Kim").note is None
