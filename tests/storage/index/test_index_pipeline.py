"""A note's index write goes to Postgres in a few round trips (storage.index.pipeline):
a statement refused late in the second (a link's target too long for its index, after
the note's entry, postings and terms went in), after the first removed a note, still
leaves nothing of the refused note behind, and the removal, the other notes and the
commit go in."""

from __future__ import annotations

import random
import string

from sqlalchemy import text

from storage.index.index import Index
from tests.storage.index.index_support import note, opened_index

# Longer than an index row may be (after compression: hence letters at random).
_LETTERS = random.Random(39)
LONG_NAME = "".join(_LETTERS.choice(string.ascii_lowercase) for _ in range(3000))


async def _counts(index: Index) -> tuple[int, int, int, int]:
    """(notes, postings, notes counting "pelican", notes in the ranking's total)."""
    async with index.database.engine.connect() as conn:
        row = (
            await conn.execute(
                text(
                    "SELECT (SELECT count(*) FROM entries WHERE vault_id = 1),"
                    " (SELECT count(*) FROM postings WHERE vault_id = 1),"
                    " (SELECT coalesce(sum(df), 0) FROM terms"
                    "  WHERE vault_id = 1 AND term = 'pelican'),"
                    " (SELECT doc_count FROM index_meta WHERE vault_id = 1)"
                )
            )
        ).one()
    return row[0], row[1], row[2], row[3]


async def test_a_note_refused_late_in_its_write_leaves_nothing_behind(database_url: str) -> None:
    async with opened_index(database_url) as index:
        await index.upsert([note("ideas/heron.md", "A grey heron.")])
        await index.upsert([note("ideas/pelican.md", "A pelican.")])
        before = await _counts(index)
        assert before[0] == 2 and before[2] == 1

        # One commit moved the pelican's note, adding a link it cannot index, and
        # wrote the kestrel's.
        refused = note("ideas/osprey.md", f"A pelican again, see [[{LONG_NAME}]].")
        written = note("ideas/kestrel.md", "A kestrel over the lake.")
        parent = await index.last_commit()
        advanced = await index.follow(
            written, [refused], {}, ["ideas/pelican.md"], commit="c" * 40, parent=parent
        )

        assert advanced and await index.last_commit() == "c" * 40
        assert sorted(await index.paths()) == ["ideas/heron.md", "ideas/kestrel.md"]
        notes, postings, pelicans, counted = await _counts(index)
        assert (notes, pelicans, counted) == (2, 0, 2)
        assert postings == before[1] - 1 + 4  # the pelican's one gone, the kestrel's four in
        assert (await index.search("pelican")).hits == ()
        assert [hit.path for hit in (await index.search("kestrel")).hits] == ["ideas/kestrel.md"]
