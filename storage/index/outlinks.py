"""A note's outgoing links, each resolved to the notes it leads to the way backlinks
are found (storage.index.note_links.reaches), so that A links to B exactly when B lists A
among its backlinks. A link to no note is kept, marked missing: a note still to write."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.index.note_links import name_key, reaches, written_links

# The notes a link may name: only those whose file name or title, as a name key, is
# one of the links' keys. For ASCII names the key is computed here as name_key does
# (lower case, each run of other characters one `-`); a name with other characters
# (accents fold, scripts keep their letters) always comes back, for name_key to judge.
_KEY_SQL = "trim(both '-' from regexp_replace(lower({name}), '[^a-z0-9]+', '-', 'g'))"
_STEM = "regexp_replace(e.path, '^.*/|[.]md$', '', 'g')"
_CANDIDATES = text(
    f"""
    SELECT e.path, e.title FROM entries e
    WHERE e.vault_id = :vault
      AND (e.path || coalesce(e.title, '') ~ '[^\\x01-\\x7f]'
           OR {_KEY_SQL.format(name=_STEM)} = ANY(CAST(:keys AS text[]))
           OR {_KEY_SQL.format(name="coalesce(e.title, '')")} = ANY(CAST(:keys AS text[])))
    """
)


@dataclass(frozen=True, slots=True)
class OutLink:
    """One link of a note: its target as written, the line holding it, and the notes
    (path, title) it leads to, best first; none when its target is missing."""

    target: str
    context: str
    notes: tuple[tuple[str, str], ...]
    relation: str | None = None  # `works_at` of `- works_at [[Acme]]`

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
    keys = sorted({link.key for _, link in found})
    async with engine.connect() as conn:
        rows = list(await conn.execute(_CANDIDATES, {"vault": vault_id, "keys": keys}))
    # Each candidate under the names a link may call it by (its file name, its title),
    # then checked whole by the rule backlinks follow.
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
        out.setdefault(same, OutLink(written, link.context, tuple(notes), link.relation))
    return list(out.values())
