"""The rows one write of notes makes (storage.index.index_rows.note_rows), made in one go."""

from __future__ import annotations

from storage.entry import Entry
from storage.index.index_rows import note_rows
from storage.index.indexed_note import prepare


def _entry(path: str, title: str, body: str, **fields: object) -> Entry:
    return Entry(path, path.split("/")[0], title, {"title": title, **fields}, body, "hash-" + path)


def test_note_rows_hold_every_table_of_a_batch() -> None:
    docs = [
        prepare(_entry("ideas/tea.md", "Tea garden", "tea with [[Sarah Kim]]", status="open")),
        prepare(_entry("people/sarah-kim.md", "Sarah Kim", "likes tea", aliases=["Sarah"])),
    ]

    rows = note_rows(7, [11, 12], docs, embedded=False)

    assert [(r["id"], r["path"], r["status"], r["embedded"]) for r in rows.entries] == [
        (11, "ideas/tea.md", "open", False),
        (12, "people/sarah-kim.md", None, False),
    ]
    # "tea" is in both notes, "with" in one.
    frequencies = dict(zip(rows.terms["terms"], rows.terms["dfs"], strict=True))
    assert frequencies["tea"] == 2 and frequencies["with"] == 1
    assert rows.terms["terms"] == sorted(rows.terms["terms"]) and rows.terms["vault"] == 7
    postings = list(zip(rows.postings["terms"], rows.postings["ids"], strict=True))
    assert ("with", 11) in postings and ("likes", 12) in postings
    assert [(r["source_id"], r["target_key"]) for r in rows.links] == [(11, "sarah-kim")]
    assert {(r["entry_id"], r["name"]) for r in rows.names} == {
        (11, "Tea garden"),
        (12, "Sarah Kim"),
        (12, "Sarah"),
    }


def test_note_rows_mark_embedded_notes() -> None:
    doc = prepare(_entry("ideas/tea.md", "Tea", "green tea"))
    assert note_rows(1, [5], [doc], embedded=True).entries[0]["embedded"] is True
