"""The neighbours of a note (storage.index.related): only its own vault's notes, never
itself, nor a note already tied to it by a link, nor a digest; scored on words and,
with vectors, on meaning against the vault's own baseline."""

from __future__ import annotations

from storage.entry import Entry
from storage.index.embeddings import HashingEmbedder
from storage.index.index import Index
from tests.storage.index.index_support import connected, note

OTHER_TOPICS = [
    "Renew the car insurance before the end of March",
    "Paint the balcony railing dark green this summer",
    "Read Piranesi by Susanna Clarke on the train",
    "Dentist appointment moved to Tuesday afternoon",
    "Plan the garden party for June with the neighbours",
    "Pay the electricity bill before the fifteenth",
    "Book a haircut for next week near the office",
    "Running plan: three easy runs a week and a long one",
    "Guitar chords for the campfire song practice",
    "Knit a winter scarf with the blue merino wool",
    "Visit the botanical garden when the cherry trees bloom",
    "Order bird seed for the feeder in the garden",
]
SOURDOUGH = [
    ("ideas/starter.md", "Sourdough starter needs feeding with rye flour and water daily"),
    ("ideas/bread.md", "Sourdough bread with rye flour, a long cold proof of the starter"),
]
NEW = ("ideas/new.md", "My sourdough starter smells of acetone: more rye flour and water")


def notes(entries: list[tuple[str, str]]) -> list[Entry]:
    return [note(path, body, title=body[:40]) for path, body in entries]


async def test_only_the_vaults_own_untied_notes_are_neighbours(database_url: str) -> None:
    embedder = HashingEmbedder(64)
    async with connected(database_url) as database:
        mine = await Index.open(database, embedder, vault_id=1)
        theirs = await Index.open(database, embedder, vault_id=2)
        others = [(f"admin/other-{i}.md", text) for i, text in enumerate(OTHER_TOPICS)]
        daily = note("daily/2026-11-20.md", "- 09:00 [[new]] sourdough starter rye flour water")
        digest = note("digests/2026-11-20.md", "Sourdough starter rye flour water acetone")
        await mine.upsert([*notes([*others, *SOURDOUGH, NEW]), daily, digest])
        await theirs.upsert(notes([("ideas/team-starter.md", SOURDOUGH[0][1]), NEW]))

        near = await mine.related(NEW[0])

        paths = {n.path for n in near}
        assert {"ideas/starter.md", "ideas/bread.md"} <= paths
        assert NEW[0] not in paths  # not itself
        assert "daily/2026-11-20.md" not in paths  # it links to the note already
        assert "digests/2026-11-20.md" not in paths  # generated, not a thought
        assert "ideas/team-starter.md" not in paths  # another vault's
        starter = next(n for n in near if n.path == "ideas/starter.md")
        assert starter.similarity is not None and starter.similarity > 2
        assert starter.shared >= 4 and 0 < starter.keyword <= 1
        far = [n for n in near if n.path.startswith("admin/")]
        assert all(n.keyword < starter.keyword for n in far)


async def test_without_vectors_the_words_alone_score(database_url: str) -> None:
    async with connected(database_url) as database:
        index = await Index.open(database, None)
        await index.upsert(notes([*SOURDOUGH, NEW]))
        near = await index.related(NEW[0])
        assert {n.path for n in near} == {"ideas/starter.md", "ideas/bread.md"}
        assert all(n.similarity is None for n in near)
        assert await index.related("ideas/not-indexed.md") == []


async def test_notes_the_new_note_links_to_are_no_news(database_url: str) -> None:
    """A thought that already links `[[Sourdough bread…]]` (by title) or a path is
    not told about those notes again; its unlinked neighbour still is."""
    async with connected(database_url) as database:
        index = await Index.open(database, None)
        linking = (NEW[0], NEW[1] + f" see [[{SOURDOUGH[1][1][:40]}]]")
        await index.upsert(notes([*SOURDOUGH, linking]))
        assert {n.path for n in await index.related(NEW[0])} == {"ideas/starter.md"}
        by_path = (NEW[0], NEW[1] + " see [the starter](starter.md)")
        await index.upsert(notes([by_path]))
        assert {n.path for n in await index.related(NEW[0])} == {"ideas/bread.md"}
