"""Which unlinked mentions the weekly review suggests: whole words in any case and
with or without accents, outside code and links, never a note's own name, never a
name that is short, common in the vault or shared by two notes, and never where the
note links to the named one already."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from storage.index.mention_names import MentionText, note_names
from storage.index.mention_search import unlinked_mentions
from tests.storage.index.index_support import opened_store

CATEGORIES = ("people", "projects", "ideas", "admin", "inbox")


def test_a_mention_is_found_where_it_is_written_and_linked_as_written() -> None:
    body = "Met `Café Central` and [Café Central](x.md), then the CAFE CENTRAL crowd, Straße."
    text = MentionText(body)
    start, end = text.find("Café Central") or (0, 0)
    assert body[start:end] == "CAFE CENTRAL"
    assert text.linked("Café Central", "ideas/Café Central.md") == body.replace(
        "CAFE CENTRAL", "[[Café Central|CAFE CENTRAL]]"
    )
    assert text.linked("Strasse", "ideas/strasse.md") == body.replace(
        "Straße", "[[strasse|Straße]]"
    )
    assert MentionText("the cafeteria").find("Cafe") is None  # whole words only
    assert MentionText("Sarah\nKim").find("Sarah Kim") is None  # not across lines


def test_names_too_short_or_without_letters_are_not_names() -> None:
    names = note_names("Bob", {"aliases": ["Robert Smith", "2026", "AI", "  "]})
    assert [n.name for n in names] == ["Robert Smith"]


async def test_the_review_suggests_each_note_s_first_unlinked_mention(
    tmp_path: Path, database_url: str
) -> None:
    async with opened_store(tmp_path / "vault", database_url, keyword_only=True) as store:
        await store.create("people", "Zoë Adams", "A person.", {"aliases": ["Zoey"]})
        await store.create("ideas", "Meeting", "A word every note uses.")
        await store.create("projects", "Apollo", "A project.")
        await store.create("projects", "Twin Peaks", "One of two.")
        await store.create("ideas", "Twin Peaks", "The other one.")
        await store.create("ideas", "One", "Zoe Adams said hi; Apollo is late.")
        await store.create("ideas", "Two", "Lunch with zoey. [[Apollo]] and Apollo.")
        await store.create("ideas", "Three", "About Twin Peaks, my meeting notes.")
        for n in range(25):  # `meeting` is in more than 20 notes: a common word here
            await store.create("inbox", f"Filler {n}", "Another meeting.")
        await store.create("ideas", "Zoë Adams again", "Only the title names Zoë Adams")
        now = datetime.now(UTC)
        async with store.database.engine.connect() as conn:
            found = await unlinked_mentions(
                conn,
                store.index.vault_id,
                since=now - timedelta(days=7),
                until=now + timedelta(minutes=1),
                categories=CATEGORIES,
            )
    got = [(m.title, m.target_title, m.written) for m in found]
    assert got == [
        ("Zoë Adams again", "Zoë Adams", "Zoë Adams"),
        ("Two", "Zoë Adams", "zoey"),
        ("One", "Zoë Adams", "Zoe Adams"),
    ]
