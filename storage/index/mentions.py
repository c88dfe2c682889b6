"""Unlinked mentions: notes changed in a period that write another note's name
without linking to it, for the weekly review (and its Link button).

Which notes: those changed in the period in the given folders (the person's
categories: digest copies and other folders are left out), newest first, at most
SCAN of them, each read up to BODY_CHARS. Which names: titles and aliases of any
note of the vault (storage.index.names says which are long enough); a one-word name
is too common to suggest when its word occurs in more than COMMON_SHARE of the
vault's notes and more than COMMON_NOTES of them (`Meeting`, `Budget` in a work
vault), a property of the vault, not of a word list. A note already linking to the
named note (anywhere, in any way backlinks count) is not suggested for it.

What comes back: for each note, its first mention (earliest in the text; at one
place the longer name), newest-changed note first, up to `limit` notes.

Cost: one indexed scan of the period's notes, one lookup of the names whose first
word those notes use (`note_names` by first term), one query for existing links;
the matching itself is a dictionary walk and one regular expression per candidate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.index.links import LINKS_TO, target_keys
from storage.index.names import MentionText

SCAN = 200
BODY_CHARS = 20_000
COMMON_SHARE = 0.02
COMMON_NOTES = 20
PER_NOTE = 5  # candidate mentions kept per note before existing links are checked


@dataclass(frozen=True, slots=True)
class Mention:
    """Note `path` writes `written`, a name (`name`) of the note `target`, unlinked.
    `content_hash` is the mentioning note's as it was read, for a Link made later."""

    path: str
    title: str
    content_hash: str
    target: str
    target_title: str
    name: str
    written: str


_RECENT = text(
    """
    SELECT e.id, e.path, e.title, e.content_hash, left(e.body, :chars) AS body FROM entries e
    WHERE e.vault_id = :vault AND e.updated >= :since AND e.updated < :until
      AND e.category = ANY(CAST(:categories AS text[]))
    ORDER BY e.updated DESC, e.id DESC
    LIMIT :scan
    """
)
_NAMES = text(
    """
    SELECT n.entry_id, n.name, n.first_term, n.words, e.path, e.title
    FROM note_names n JOIN entries e ON e.id = n.entry_id
    LEFT JOIN terms t ON n.words = 1 AND t.vault_id = n.vault_id AND t.term = n.first_term
    WHERE n.vault_id = :vault AND n.first_term = ANY(CAST(:terms AS text[]))
      AND (n.words > 1 OR coalesce(t.df, 0) <= greatest(:common_notes,
           :common_share * (SELECT doc_count FROM index_meta WHERE vault_id = :vault)))
    """
)
_LINKED = text(
    f"""
    SELECT c.n FROM unnest(CAST(:sources AS int[]), CAST(:stems AS text[]),
                           CAST(:titles AS text[]), CAST(:paths AS text[]))
         WITH ORDINALITY AS c(source, stem, title, path, n)
    WHERE EXISTS (SELECT 1 FROM links l WHERE l.source_id = c.source
                  AND {LINKS_TO.format(stem="c.stem", title="c.title", path="c.path")})
    """
)


@dataclass(frozen=True, slots=True)
class _Candidate:
    at: int
    source: Any  # the row of the mentioning note
    target: Any  # the row of the name
    written: str


async def unlinked_mentions(
    conn: AsyncConnection,
    vault_id: int,
    *,
    since: datetime,
    until: datetime,
    categories: Sequence[str],
    limit: int = 5,
) -> list[Mention]:
    """Up to `limit` notes changed in [since, until) that mention another note by name
    without linking to it, newest first, each with its first such mention."""
    recent = (
        await conn.execute(
            _RECENT,
            {
                "vault": vault_id,
                "since": since,
                "until": until,
                "categories": list(categories),
                "chars": BODY_CHARS,
                "scan": SCAN,
            },
        )
    ).all()
    texts = {row.id: MentionText(row.body) for row in recent}
    terms = sorted(set().union(*(t.terms for t in texts.values()))) if texts else []
    if not terms:
        return []
    params = {
        "vault": vault_id,
        "terms": terms,
        "common_notes": COMMON_NOTES,
        "common_share": COMMON_SHARE,
    }
    by_first: dict[str, list[Any]] = defaultdict(list)
    for name in (await conn.execute(_NAMES, params)).all():
        by_first[name.first_term].append(name)
    candidates = [c for row in recent for c in _candidates(row, texts[row.id], by_first)]
    linked = await _already_linked(conn, candidates)
    found: list[Mention] = []
    seen: set[int] = set()
    for n, candidate in enumerate(candidates):
        row, name = candidate.source, candidate.target
        if n in linked or row.id in seen:
            continue
        seen.add(row.id)
        found.append(
            Mention(
                row.path,
                row.title,
                row.content_hash,
                name.path,
                name.title,
                name.name,
                candidate.written,
            )
        )
        if len(found) >= limit:
            break
    return found


def _candidates(row: Any, body: MentionText, by_first: dict[str, list[Any]]) -> list[_Candidate]:
    """The note's first mention of each other note it names, earliest first."""
    first: dict[int, _Candidate] = {}
    for term in body.terms & by_first.keys():
        for name in by_first[term]:
            if name.entry_id == row.id:
                continue
            span = body.find(name.name)
            if span is None:
                continue
            known = first.get(name.entry_id)
            if known is None or span[0] < known.at:
                first[name.entry_id] = _Candidate(span[0], row, name, row.body[span[0] : span[1]])
    ordered = sorted(first.values(), key=lambda c: (c.at, -len(c.written), c.target.path))
    return ordered[:PER_NOTE]


async def _already_linked(conn: AsyncConnection, candidates: list[_Candidate]) -> set[int]:
    """Positions in `candidates` whose note links to the note it mentions already."""
    if not candidates:
        return set()
    keys = [target_keys(c.target.path, c.target.title) for c in candidates]
    rows = await conn.execute(
        _LINKED,
        {
            "sources": [c.source.id for c in candidates],
            "stems": [k[0] for k in keys],
            "titles": [k[1] for k in keys],
            "paths": [k[2] for k in keys],
        },
    )
    return {int(r.n) - 1 for r in rows}
