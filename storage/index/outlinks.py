"""A note's outgoing links, each resolved to the notes it leads to the way backlinks
are found (storage.index.links.reaches), so that A links to B exactly when B lists A
among its backlinks. A link to no note is kept, marked missing: a note still to write."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.index.links import name_key, reaches, written_links


@dataclass(frozen=True, slots=True)
class OutLink:
    """One link of a note: its target as written, the line holding it, and the notes
    (path, title) it leads to, best first; none when its target is missing."""

    target: str
    context: str
    notes: tuple[tuple[str, str], ...]

    @property
    def missing(self) -> bool:
        return not self.notes


async def outgoing_links(
    engine: AsyncEngine, vault_id: int, source: str, body: str
) -> list[OutLink]:
    """The links of `body` (the note at vault path `source`) in the order written,
    wikilinks first, each note once. A name several notes share leads to each of them;
    the one in the linking note's folder, then the shortest path, comes first (as
    Obsidian picks)."""
    found = written_links(body, source)
    if not found:
        return []
    async with engine.connect() as conn:
        rows = list(
            await conn.execute(
                text("SELECT path, title FROM entries WHERE vault_id = :vault"), {"vault": vault_id}
            )
        )
    # Each note under the names a link may call it by (its file name, its title): the
    # few a link's name fits are then checked whole, not every note of the vault.
    named: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        named[name_key(row.path.rsplit("/", 1)[-1].removesuffix(".md"))][row.path] = row.title
        if row.title:
            named[name_key(row.title)][row.path] = row.title
    folder = source.rpartition("/")[0]
    out: dict[object, OutLink] = {}
    for written, link in found:
        fits = named.get(link.key, {})
        notes = [(path, title) for path, title in fits.items() if reaches(link, path, title)]
        notes.sort(key=lambda n: (n[0].rpartition("/")[0] != folder, n[0].count("/"), n[0]))
        # `[[Kyoto]]` and `[[projects/kyoto]]` in one note: one note linked, listed once.
        same = tuple(notes) if notes else link.key
        out.setdefault(same, OutLink(written, link.context, tuple(notes)))
    return list(out.values())
