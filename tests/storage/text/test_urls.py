"""One reading of web addresses: what is fetched, what a title leaves out and what no
name is looked for in agree on where a link starts and ends."""

from __future__ import annotations

from bot.tools.note_names import title_from
from storage.text.urls import link_spans, links, without_addresses


def test_a_link_ends_where_the_sentence_around_it_takes_over() -> None:
    assert links("See https://example.org/a. And (https://example.org/b)!") == [
        "https://example.org/a",
        "https://example.org/b",
    ]
    assert links("https://en.wikipedia.org/wiki/Python_(language), then") == [
        "https://en.wikipedia.org/wiki/Python_(language)"
    ]
    assert links("記事https://example.org/a。とても良い") == ["https://example.org/a"]


def test_only_web_links_outside_code_count() -> None:
    text = "`curl https://api.example.org/x` or git+https://example.org/r.git or ftp://f.org"
    assert links(text) == []
    assert links("```\nhttps://example.org/in-a-block\n```\nhttps://example.org/out") == [
        "https://example.org/out"
    ]


def test_a_title_leaves_out_exactly_the_link_that_is_fetched() -> None:
    # The title's own pattern ran on to the next space: the words after a link written
    # in Japanese (no space) went with it, though the fetcher stopped at the 。.
    assert title_from("記事 https://example.org/a。とても良い") == "記事 。とても良い"
    assert title_from("Read [this](https://example.org/a) later") == "Read [this] later"
    assert title_from("https://example.org/some/page/") == "example.org/some/page"


def test_an_address_of_any_kind_is_no_words() -> None:
    text = "Mail will@example.org, see github.com/will or www.will.dev, ssh://will@host"
    blank = without_addresses(text)
    assert len(blank) == len(text) and "will" not in blank.lower()
    assert list(link_spans("plain words")) == []
