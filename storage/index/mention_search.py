"""Unlinked mentions: notes changed in a period that write another note's name
without linking to it, for the weekly review (and its Link button).

Which notes: those changed in the period in the given folders (the person's
categories: digest copies and other folders are left out), newest first, at most
SCAN of them, each read up to BODY_CHARS. Which names: titles and aliases of any note
of the vault (storage.index.mention_names says which are long enough); a one-word
name is too common to suggest when its word occurs in more than COMMON_SHARE of the
vault's notes and more than COMMON_NOTES of them (`Meeting`, `Budget` in a work
vault), a property of the vault, not of a word list; a name several notes go by is
skipped too, since a link would have to guess which. A note already linking to the
named note (anywhere, in any way backlinks count) is not suggested for it.

What comes back: for each note, its first mention (earliest in the text; at one
place the longer name), newest-changed note first, up to `limit` notes. The notes
are read a page at a time: a week with mentions early stops early.

Cost: one indexed scan of the period's notes, one lookup of the names whose key
word those notes use (`note_names` by key term), one query for existing links;
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

from storage.index.mention_names import MentionText
from storage.index.note_links import LINKS_TO, target_keys

SCAN = 200
PAGE = 50
BODY_CHARS = 20_000
COMMON_SHARE = 0.02
COMMON_NOTES = 20
PER_NOTE = 5  # candidate mentions kept per note before existing links are checked


@dataclass(frozen=True, slots=True)
class UnlinkedMention:
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
    LIMIT :page OFFSET :offset
    """
)
_NAMES = text(
    "SELECT entry_id, name, terms FROM note_names"
    " WHERE vault_id = :vault AND key_term = ANY(CAST(:terms AS text[]))"
)
# Of one-word names, those whose word is too common in the vault to mean one note.
_COMMON = text(
    """
    SELECT t.term FROM terms t
    WHERE t.vault_id = :vault AND t.term = ANY(CAST(:terms AS text[]))
      AND t.df > greatest(
        :common_notes, :common_share * (SELECT doc_count FROM index_meta WHERE vault_id = :vault))
    """
)
_TARGETS = text("SELECT id, path, title FROM entries WHERE id = ANY(CAST(:ids AS int[]))")
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
class _Name:
    """A name one note goes by (and no other), with its terms."""

    entry_id: int
    name: str
    terms: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Candidate:
    at: int
    source: Any  # the row of the mentioning note
    target: _Name
    written: str


async def unlinked_mentions(
    conn: AsyncConnection,
    vault_id: int,
    *,
    since: datetime,
    until: datetime,
    categories: Sequence[str],
    limit: int = 5,
) -> list[UnlinkedMention]:
    """Up to `limit` notes changed in [since, until) that mention another note by name
    without linking to it, newest first, each with its first such mention. The notes
    are read PAGE at a time, newest first, until `limit` are found (or SCAN read)."""
    params = {
        "vault": vault_id,
        "since": since,
        "until": until,
        "categories": list(categories),
        "chars": BODY_CHARS,
        "page": PAGE,
    }
    found: list[UnlinkedMention] = []
    for offset in range(0, SCAN, PAGE):
        recent = (await conn.execute(_RECENT, {**params, "offset": offset})).all()
        found += await _mentions_in(conn, vault_id, recent, limit - len(found))
        if len(found) >= limit or len(recent) < PAGE:
            break
    return found


async def _mentions_in(
    conn: AsyncConnection, vault_id: int, recent: Sequence[Any], limit: int
) -> list[UnlinkedMention]:
    """Up to `limit` of the `recent` notes' unlinked mentions, in their order."""
    texts = {row.id: MentionText(row.body) for row in recent}
    terms = sorted(set().union(*(t.terms for t in texts.values()))) if texts else []
    if not terms:
        return []
    names = await _names(conn, vault_id, terms)
    candidates = [c for row in recent for c in _candidates(row, texts[row.id], names)]
    candidates = await _uncommon(conn, vault_id, candidates)
    if not candidates:
        return []
    ids = sorted({c.target.entry_id for c in candidates})
    by_id = {r.id: r for r in await conn.execute(_TARGETS, {"ids": ids})}
    candidates = [c for c in candidates if c.target.entry_id in by_id]
    linked = await _already_linked(conn, candidates, by_id)
    chosen: list[_Candidate] = []
    for n, candidate in enumerate(candidates):
        if n in linked or any(c.source.id == candidate.source.id for c in chosen):
            continue
        chosen.append(candidate)
        if len(chosen) >= limit:
            break
    return [
        UnlinkedMention(
            c.source.path,
            c.source.title,
            c.source.content_hash,
            by_id[c.target.entry_id].path,
            by_id[c.target.entry_id].title,
            c.target.name,
            c.written,
        )
        for c in chosen
    ]


async def _names(conn: AsyncConnection, vault_id: int, terms: list[str]) -> dict[str, list[_Name]]:
    """The names keyed by one of `terms`, by key; a name several notes go by is left
    out (a link would have to guess which)."""
    result = await conn.execute(_NAMES, {"vault": vault_id, "terms": terms})
    owners: dict[tuple[str, ...], list[tuple[int, str]]] = defaultdict(list)
    for row in result:
        owners[tuple(row.terms)].append((row.entry_id, row.name))
    by_term: dict[str, list[_Name]] = defaultdict(list)
    for words, named in owners.items():
        if len({entry_id for entry_id, _ in named}) == 1:
            entry_id, name = named[0]
            by_term[words[0]].append(_Name(entry_id, name, frozenset(words)))
    return by_term


def _candidates(row: Any, body: MentionText, names: dict[str, list[_Name]]) -> list[_Candidate]:
    """The note's first mention of each other note it names, earliest first."""
    first: dict[int, _Candidate] = {}
    for term in body.terms & names.keys():
        for name in names[term]:
            if name.entry_id == row.id or not name.terms <= body.terms:
                continue
            span = body.find(name.name)
            if span is None:
                continue
            known = first.get(name.entry_id)
            if known is None or span[0] < known.at:
                first[name.entry_id] = _Candidate(span[0], row, name, row.body[span[0] : span[1]])
    ordered = sorted(first.values(), key=lambda c: (c.at, -len(c.written), c.target.name))
    return ordered[:PER_NOTE]


async def _uncommon(
    conn: AsyncConnection, vault_id: int, candidates: list[_Candidate]
) -> list[_Candidate]:
    """`candidates` without one-word names too common in the vault to mean one note."""
    single = sorted({next(iter(c.target.terms)) for c in candidates if len(c.target.terms) == 1})
    if not single:
        return candidates
    params = {
        "vault": vault_id,
        "terms": single,
        "common_notes": COMMON_NOTES,
        "common_share": COMMON_SHARE,
    }
    common = set((await conn.execute(_COMMON, params)).scalars())
    return [c for c in candidates if len(c.target.terms) > 1 or not c.target.terms & common]


async def _already_linked(
    conn: AsyncConnection, candidates: list[_Candidate], targets: dict[int, Any]
) -> set[int]:
    """Positions in `candidates` whose note links to the note it mentions already;
    `targets` holds the mentioned notes' rows by id."""
    keys = [
        target_keys(targets[c.target.entry_id].path, targets[c.target.entry_id].title)
        for c in candidates
    ]
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
