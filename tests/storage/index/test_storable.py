"""An Entry may reach the index holding what Postgres cannot store, from a file (NUL)
or from a caller (a lone surrogate, which no UTF-8 can carry; bytes from YAML's
`!!binary`): every text of it is stored with U+FFFD in place, at any depth of its
fields, and the note is found by its words."""

from __future__ import annotations

from datetime import date

from sqlalchemy import text

from storage.entry import Entry
from tests.storage.index.index_support import opened_index


async def test_refused_characters_are_stored_as_replacement_marks(database_url: str) -> None:
    fields = {
        "aliases": ["Bird\x00watch"],
        "tags": ["wild\x00life"],
        "plan": {
            "when": date(2026, 11, 20),
            "steps\x00": ("one\ud800", {"two\x00"}),
            "raw": b"\x00",
        },
    }
    body = "a kestrel\ud800hovering over [[Nest\x00box]]"
    odd = Entry("ideas/odd.md", "ideas", "Odd\ud800title", fields, body, "sha")
    async with opened_index(database_url) as index:
        assert await index.upsert([odd]) == []
        assert [hit.path for hit in (await index.search("kestrel")).hits] == ["ideas/odd.md"]
        async with index.database.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        "SELECT title, body, tags, fields FROM entries WHERE path = 'ideas/odd.md'"
                    )
                )
            ).one()
            link = await conn.scalar(text("SELECT context FROM links"))
            name = await conn.scalar(text("SELECT name FROM note_names WHERE name LIKE 'Bird%'"))
        assert row.title == "Odd\ufffdtitle"
        assert row.body == "a kestrel\ufffdhovering over [[Nest\ufffdbox]]"
        assert row.tags == ["wild\ufffdlife"]
        assert row.fields["plan"] == {
            "when": {"$date": "2026-11-20"},
            "steps\ufffd": ["one\ufffd", ["two\ufffd"]],
            "raw": "\ufffd",
        }
        assert link == "a kestrel\ufffdhovering over [[Nest\ufffdbox]]"
        assert name == "Bird\ufffdwatch"
        entry = await index.get("ideas/odd.md")
        assert entry is not None and entry.fields["plan"]["when"] == date(2026, 11, 20)
