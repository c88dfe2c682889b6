"""The pure text side of the index: tokens, queries, chunks, links, snippets, fields."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from storage.index.chunking import MAX_CHUNK_CHARS, chunk_note
from storage.index.indexed_note import decode_fields, encode_fields
from storage.index.note_links import extract_links, name_key, path_key
from storage.index.query import parse_query
from storage.index.snippets import make_snippet
from storage.index.tokens import note_terms, tokenize


def test_tokens_fold_case_and_latin_accents_but_keep_other_scripts() -> None:
    assert tokenize("Café CAFÉ naïve") == ["cafe", "cafe", "naive"]
    assert tokenize("Встреча команды, йогурт") == ["встреча", "команды", "йогурт"]
    assert tokenize("東京都") == ["東京", "京都"]
    assert tokenize("x" * 65 + " ok") == ["ok"]


def test_a_notes_terms_length_and_folded_text_come_in_one_go() -> None:
    terms, length, folded = note_terms("Café\nCafé\nCafé au lait", "Café\nau Lait")
    assert terms == {"cafe": 3, "au": 1, "lait": 1} and length == 5
    assert folded == "cafe\nau lait"


def test_query_syntax_becomes_a_filter_and_plain_words_stay_soft() -> None:
    parsed = parse_query('budget "Call with Sarah" -draft notes')
    assert parsed.words == ("budget", "call", "with", "sarah", "notes")
    assert parsed.filters.required == ("Call with Sarah",)
    assert parsed.filters.excluded == ("draft",)
    assert not parse_query("notes about the e-mail").filters.active


def test_every_chunk_carries_the_title_and_stays_bounded() -> None:
    body = "Intro line.\n\n## Budget\n\n" + ("word " * 600) + "\n\n## People\n\nSarah and Tom."
    chunks = chunk_note("Q3 planning", body)
    assert len(chunks) >= 3
    assert all(c.text.startswith("Q3 planning") for c in chunks)
    assert all(len(c.text) <= MAX_CHUNK_CHARS + 40 for c in chunks)
    assert any("Budget" in c.text for c in chunks)
    people = next(c for c in chunks if "Sarah and Tom" in c.text)
    assert body[people.start :].startswith("Sarah and Tom")
    assert [c.text for c in chunk_note("Empty", "")] == ["Empty"]


def test_links_of_every_kind_are_found_and_code_is_skipped() -> None:
    body = "\n".join(
        [
            "See [[Tea Ceremony]] and [[Sarah Connor|Sarah]] and [[projects/Q3 Plan#Budget]].",
            "Also [the plan](../projects/Q3%20Plan.md) and [web](https://example.org/x.md).",
            "And [root](<ideas/big idea.md>) and [img](pic.png).",
            "```",
            "[[Not A Link]]",
            "```",
        ]
    )
    links = extract_links(body, "people/ann.md")
    keys = [(link.key, link.path) for link in links]
    assert ("tea-ceremony", None) in keys
    assert ("sarah-connor", None) in keys
    assert ("q3-plan", "projects/q3-plan") in keys
    assert ("big-idea", "people/ideas/big-idea") in keys
    assert {link.alt for link in links if link.key == "big-idea"} == {"ideas/big-idea"}
    assert all(link.key != "not-a-link" for link in links)
    assert len(links) == 4  # the two Q3 Plan links resolve to the same target
    assert name_key("Tea  Ceremony") == name_key("tea-ceremony") == "tea-ceremony"
    assert path_key("Projects/Q3 Plan.md") == "projects/q3-plan"


def test_snippet_is_cut_around_the_first_matching_word() -> None:
    body = "Lorem ipsum " * 40 + "the Zeppelin budget was approved " + "dolor sit " * 40
    snippet = make_snippet(body, ["zeppelin"])
    assert "Zeppelin budget" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert make_snippet("Short body.", ["absent"]) == "Short body."
    assert "Zeppelin" in make_snippet(body, [], prefixes=["zepp"])


def test_fields_read_back_with_their_types() -> None:
    fields = {
        "due": date(2026, 11, 20),
        "created": datetime(2026, 11, 1, 9, 30, tzinfo=UTC),
        "tags": ["a", "b"],
        "nested": {"when": date(2026, 1, 2), "n": 3},
        "ratio": float("nan"),
        2026: "year key",
    }
    back = decode_fields(json.loads(encode_fields(fields)))
    assert back["due"] == date(2026, 11, 20)
    assert back["created"] == datetime(2026, 11, 1, 9, 30, tzinfo=UTC)
    assert back["nested"] == {"when": date(2026, 1, 2), "n": 3}
    assert back["tags"] == ["a", "b"]
    assert back["ratio"] == "nan"
    assert back["2026"] == "year key"
