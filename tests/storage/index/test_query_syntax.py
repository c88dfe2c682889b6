"""The search syntax parser: one test per operator and per malformed form, and a
property: whatever the text, parsing never raises, and text made only of malformed
syntax and symbols is read as exactly its plain words."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.index.filters import Filters
from storage.index.query import OPERATORS, parse_query
from storage.index.tokens import tokenize


def plain_words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tokenize(text)))


def test_plain_words_rank_and_filter_nothing() -> None:
    parsed = parse_query("notes about salt and pepper or not")
    assert parsed.words == ("notes", "about", "salt", "and", "pepper", "or", "not")
    assert parsed.filters == Filters()
    assert parsed.text == "notes about salt and pepper or not"


def test_quoted_phrase_is_required_and_its_words_rank() -> None:
    parsed = parse_query('budget "call with Sarah"')
    assert parsed.filters.required == ("call with Sarah",)
    assert parsed.words == ("budget", "call", "with", "sarah")
    curly = parse_query("\u201ccall with Sarah\u201d")
    assert curly.filters.required == ("call with Sarah",)


def test_and_requires_both_sides() -> None:
    parsed = parse_query("budget AND travel AND cuts plan")
    assert parsed.filters.required == ("budget", "travel", "cuts")
    assert parsed.words == ("budget", "travel", "cuts", "plan")


def test_or_makes_a_one_of_group_that_binds_tighter_than_and() -> None:
    parsed = parse_query("tea OR coffee OR mate AND morning")
    assert parsed.filters.any_of == (("tea", "coffee", "mate"),)
    assert parsed.filters.required == ("morning",)
    assert parsed.words == ("tea", "coffee", "mate", "morning")


def test_not_and_minus_exclude() -> None:
    parsed = parse_query('budget NOT draft -old -"first version" e-mail')
    assert parsed.filters.excluded == ("draft", "old", "first version")
    assert parsed.words == ("budget", "e", "mail")
    assert parse_query("budget AND NOT draft").filters.required == ("budget",)


def test_a_dash_before_one_letter_is_a_commands_flag_not_an_exclusion() -> None:
    # `netstat -i` left out every note with the word "I", netstat's own page too.
    parsed = parse_query("For netstat -i, or ls -L. -ab")
    assert parsed.filters.excluded == ("ab",)
    assert parsed.words == ("for", "netstat", "i", "or", "ls", "l")


def test_field_filters() -> None:
    parsed = parse_query(
        'tag:#Garden tag:seeds category:Ideas status:active title:"q3 plan" tomatoes'
    )
    assert parsed.filters.tags == ("#Garden", "seeds")
    assert parsed.filters.category == "ideas"
    assert parsed.filters.status == "active"
    assert parsed.filters.titles == ("q3 plan",)
    assert parsed.words == ("tomatoes",)
    assert parsed.text == "tomatoes"


def test_dates_take_a_day_or_a_month_and_both_ends_count() -> None:
    day = parse_query("after:2026-11-01 before:2026-11-30")
    assert day.filters.modified_after == date(2026, 11, 1)
    assert day.filters.modified_before == date(2026, 11, 30)
    month = parse_query("after:2026-02 before:2026-02")
    assert month.filters.modified_after == date(2026, 2, 1)
    assert month.filters.modified_before == date(2026, 2, 28)
    assert day.words == () and day.text == ""


def test_the_last_month_kept_is_a_month_like_any_other() -> None:
    # Read as two plain words before: 9999-12 "had no following month".
    parsed = parse_query("before:9999-12")
    assert parsed.filters.modified_before == date(9999, 12, 31) and parsed.words == ()


def test_a_value_ends_before_trailing_punctuation_and_minus_takes_any_word() -> None:
    parsed = parse_query("status:done, tag:garden. before:2026-11!")
    assert parsed.filters.status == "done"
    assert parsed.filters.tags == ("garden",)
    assert parsed.filters.modified_before == date(2026, 11, 30)
    assert parse_query("-https://x.org").filters.excluded == ("https://x.org",)


def test_filters_only_have_no_words() -> None:
    parsed = parse_query("tag:garden")
    assert parsed.words == ()
    assert parsed.filters.tags == ("garden",)


MALFORMED_FORMS = [
    '"',
    '"$"',
    'budget "$" call',
    'budget "call',
    'budget" call "with',
    "AND budget",
    "budget AND",
    "budget OR OR call",
    "OR",
    "NOT",
    "budget NOT",
    "-",
    "budget - call",
    "-5 degrees",
    "tag: budget",
    "tag:",
    'tag:"" budget',
    "after:notadate",
    "before:2026-13-45",
    "after:2026-02-30",
    "after:0000-01",
    "foo:bar budget",
    "see https://example.org/budget at 10:30",
    "((budget)) (call",
    "budget) AND (",
    "-tag:draft budget",
    "$ % ^ & * budget",
]


@pytest.mark.parametrize("text", MALFORMED_FORMS)
def test_malformed_syntax_is_read_as_plain_words(text: str) -> None:
    parsed = parse_query(text)
    assert parsed.filters == Filters(), text
    assert parsed.words == plain_words(text)
    assert parsed.text == text


MALFORMED = st.sampled_from(
    [
        '"',
        "\u201c",
        '"$"',
        '""',
        "AND",
        "OR",
        "NOT",
        "-",
        "--",
        "(",
        ")",
        "tag:",
        "status:",
        "after:notadate",
        "before:2026-99",
        "foo:bar",
        "https://x.org/a",
        "10:30",
        "$",
        "#",
        "&",
        "|",
        "!",
        "*",
        "-5",
    ]
)
WORDS = st.sampled_from(["budget", "call", "Sarah", "garden", "tea", "and", "or", "not", "x1"])


def malformed_text() -> st.SearchStrategy[str]:
    """Symbols and malformed syntax, each one separated from the words around it."""
    piece = st.one_of(MALFORMED, WORDS)
    return st.lists(piece, max_size=8).map(" ".join)


def _quoted(text: str) -> list[str]:
    """What stands between quotes that pair up: a quote at a word's start (after a
    space, or right after a phrase's closing quote) opens, the next quote closes; one
    inside a word (`$"`) opens nothing."""
    inside: list[str] = []
    opened = closed = None
    for i, char in enumerate(text):
        if char not in '"\u201c\u201d\u201e':
            continue
        if opened is not None:
            inside.append(text[opened + 1 : i])
            opened, closed = None, i
        elif i == 0 or text[i - 1].isspace() or closed == i - 1:
            opened = i
    return inside


def _only_malformed(text: str) -> bool:
    """Whether `text` holds no valid syntax after all: quotes that pair up around a
    word make a phrase, and an operator next to a word (symbols do not count, they
    are dropped) joins it."""
    if any(tokenize(inside) for inside in _quoted(text)):
        return False
    pieces = [p for p in text.split() if p in OPERATORS or tokenize(p)]
    for i, piece in enumerate(pieces):
        neighbours = pieces[max(0, i - 1) : i] + pieces[i + 1 : i + 2]
        if piece in OPERATORS and any(n not in OPERATORS for n in neighbours):
            return False
    return True


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_parsing_any_text_never_raises(text: str) -> None:
    parsed = parse_query(text)
    assert set(parsed.words) <= set(tokenize(text))


@settings(max_examples=400, deadline=None)
@given(malformed_text().filter(_only_malformed))
def test_malformed_text_is_exactly_its_plain_words(text: str) -> None:
    parsed = parse_query(text)
    assert parsed.filters == Filters()
    assert parsed.words == plain_words(text)
