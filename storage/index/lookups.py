"""Reading one vault's notes back out of the index: listings, search hits, backlinks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.entry import Backlink, Entry, SearchHit
from storage.index.filters import Filters, _escape_like
from storage.index.indexed_note import decode_fields
from storage.index.note_links import LINKS_TO, name_key, path_key, target_keys
from storage.index.query import SearchQuery
from storage.index.snippets import make_snippet, mark_words

_ENTRY_COLUMNS = (
    "e.path, e.category, e.title, e.fields, e.body, e.content_hash, e.frontmatter_error"
)


def _entry(row: Any) -> Entry:
    return Entry(
        path=row.path,
        category=row.category,
        title=row.title,
        fields=decode_fields(row.fields),
        body=row.body,
        content_hash=row.content_hash,
        frontmatter_error=row.frontmatter_error,
    )


def _where(vault_id: int, filters: Filters) -> tuple[str, dict[str, Any]]:
    conditions, params = filters.sql()
    params["vault"] = vault_id
    return "WHERE " + " AND ".join(["e.vault_id = :vault", *conditions]), params


async def list_entries(
    conn: AsyncConnection, vault_id: int, filters: Filters, limit: int, offset: int = 0
) -> list[Entry]:
    """The vault's notes matching `filters`, most recently updated first."""
    where, params = _where(vault_id, filters)
    params.update(limit=limit, offset=offset)
    rows = await conn.execute(
        text(
            f"SELECT {_ENTRY_COLUMNS} FROM entries e {where}"
            " ORDER BY e.updated DESC, e.id DESC LIMIT :limit OFFSET :offset"
        ),
        params,
    )
    return [_entry(r) for r in rows]


_RECENT_TITLES = text(
    "SELECT e.path, e.title FROM entries e WHERE e.vault_id = :vault"
    " ORDER BY e.updated DESC, e.id DESC LIMIT :limit"
)


async def recent_titles(conn: AsyncConnection, vault_id: int, limit: int) -> list[tuple[str, str]]:
    """(path, title) of the vault's most recently updated notes, newest first: what
    `list_entries` gives unfiltered, without the bodies and fields nobody reads."""
    rows = await conn.execute(_RECENT_TITLES, {"vault": vault_id, "limit": limit})
    return [(row.path, row.title) for row in rows]


async def entry_at(conn: AsyncConnection, vault_id: int, path: str) -> Entry | None:
    row = (
        await conn.execute(
            text(
                f"SELECT {_ENTRY_COLUMNS} FROM entries e"
                " WHERE e.vault_id = :vault AND e.path = :path"
            ),
            {"vault": vault_id, "path": path},
        )
    ).first()
    return _entry(row) if row else None


async def hits(
    conn: AsyncConnection,
    vault_id: int,
    ranked: Sequence[tuple[int, float]],
    query: SearchQuery,
    starts: dict[int, int],
    matched: dict[int, str],
) -> list[SearchHit]:
    """SearchHits for ranked entry ids, in that order, each with a snippet around the
    first query word in the body (else from the best-matching chunk, else the start),
    that snippet with the query's words marked, and which side found it (`matched`)."""
    if not ranked:
        return []
    rows = await conn.execute(
        text(
            "SELECT id, path, title, category, body, updated FROM entries"
            " WHERE vault_id = :vault AND id = ANY(CAST(:ids AS int[]))"
        ),
        {"vault": vault_id, "ids": [entry_id for entry_id, _ in ranked]},
    )
    by_id = {r.id: r for r in rows}
    prefixes = [w for w in query.words if len(w) >= 3]
    out: list[SearchHit] = []
    for entry_id, score in ranked:
        row = by_id.get(entry_id)
        if row is None:  # removed between the two queries (or in another vault)
            continue
        snippet = make_snippet(
            row.body, query.words, prefixes=prefixes, start=starts.get(entry_id, 0)
        )
        passage = mark_words(snippet, query.words, prefixes=prefixes)
        out.append(
            SearchHit(
                row.path,
                row.title,
                row.category,
                snippet,
                score,
                row.updated,
                matched.get(entry_id, ""),
                passage,
            )
        )
    return out


async def recent_hits(
    conn: AsyncConnection, vault_id: int, filters: Filters, limit: int
) -> list[SearchHit]:
    """A search with filters and no words to rank by: the matching notes, newest first,
    each with the start of its body."""
    where, params = _where(vault_id, filters)
    params["limit"] = limit
    rows = await conn.execute(
        text(
            f"SELECT e.path, e.title, e.category, e.body, e.updated FROM entries e {where}"
            " ORDER BY e.updated DESC, e.id DESC LIMIT :limit"
        ),
        params,
    )
    return [
        SearchHit(r.path, r.title, r.category, make_snippet(r.body), 1.0 / rank, r.updated)
        for rank, r in enumerate(rows, start=1)
    ]


async def why_empty(conn: AsyncConnection, vault_id: int, filters: Filters) -> str | None:
    """What to tell someone whose filtered search found nothing: the filters no note
    passes on its own ("No notes tagged #garden."), else all of them together; None
    without filters."""
    parts = filters.parts()
    if not parts:
        return None
    alone = [name for name, part in parts if await count_entries(conn, vault_id, part) == 0]
    if alone:
        return "No notes " + " and no notes ".join(alone) + "."
    return "No matching notes " + ", ".join(name for name, _ in parts) + "."


_BACKLINKS = text(
    f"""
    SELECT e.path, e.title, e.category, e.updated,
           (array_agg(l.context ORDER BY l.id))[1] AS context,
           array_remove(array_agg(DISTINCT l.relation), NULL) AS relations
    FROM links l JOIN entries e ON e.id = l.source_id
    WHERE l.vault_id = :vault AND {LINKS_TO.format(stem=":stem", title=":title", path=":path")}
      AND e.path <> :self
    GROUP BY e.id
    """
)


async def backlinks(
    conn: AsyncConnection, vault_id: int, path: str, title: str | None
) -> list[Backlink]:
    """The vault's notes linking to the note at `path` (by file name, by title, or by
    path), newest first, each with the types of its links there; the snippet is the
    line holding the (first) link."""
    stem, title_key, where = target_keys(path, title)
    params = {"vault": vault_id, "stem": stem, "title": title_key, "path": where, "self": path}
    rows = list(await conn.execute(_BACKLINKS, params))
    rows.sort(key=lambda r: r.updated, reverse=True)
    return [
        Backlink(
            r.path, r.title, r.category, r.context, 1.0, r.updated, relations=tuple(r.relations)
        )
        for r in rows
    ]


async def resolve_linked(conn: AsyncConnection, vault_id: int, filters: Filters) -> Filters:
    """`filters` with each `linked:` name resolved to the notes called exactly that
    (title, file name, alias or path), whose links then count as backlinks do."""
    if not filters.linked:
        return filters
    resolved = []
    for linked in filters.linked:
        named = await entries_named(conn, vault_id, linked.name, _NAMED_CANDIDATES, exact=True)
        targets = tuple((*target_keys(e.path, e.title), e.path) for e in named)
        resolved.append(replace(linked, targets=targets))
    return replace(filters, linked=tuple(resolved))


async def count_entries(conn: AsyncConnection, vault_id: int, filters: Filters) -> int:
    """How many of the vault's notes match `filters`."""
    where, params = _where(vault_id, filters)
    total = await conn.scalar(text(f"SELECT count(*) FROM entries e {where}"), params)
    return int(total or 0)


_NAMED_CANDIDATES = 200


async def entries_named(
    conn: AsyncConnection, vault_id: int, name: str, limit: int, *, exact: bool = False
) -> list[Entry]:
    """The vault's notes a person may mean by `name`: a path (with or without `.md`), a
    title, a file name or an alias, compared without case, accents or punctuation. When
    none is called exactly that (and not `exact`), the notes whose title or path
    contains it, newest first."""
    key = name_key(name)
    if not key:
        return []
    pattern = "%" + "%".join(key.split("-")) + "%"
    rows = await conn.execute(
        text(
            f"SELECT {_ENTRY_COLUMNS} FROM entries e"
            " WHERE e.vault_id = :vault AND (e.title ILIKE :pattern OR e.path ILIKE :pattern"
            " OR CAST(e.fields -> 'aliases' AS text) ILIKE :pattern)"
            " ORDER BY e.updated DESC, e.id DESC LIMIT :candidates"
        ),
        {"vault": vault_id, "pattern": pattern, "candidates": _NAMED_CANDIDATES},
    )
    candidates = [_entry(r) for r in rows]
    wanted_path = path_key(name)
    matches = [e for e in candidates if key in _names_of(e) or path_key(e.path) == wanted_path]
    if matches or exact:
        return matches[:limit]
    return [e for e in candidates if any(key in n for n in _names_of(e))][:limit]


def _names_of(entry: Entry) -> set[str]:
    stem = entry.path.rsplit("/", 1)[-1].removesuffix(".md")
    aliases = entry.fields.get("aliases")
    if isinstance(aliases, str):
        aliases = [aliases]
    names = {name_key(entry.title), name_key(stem)}
    if isinstance(aliases, list):
        names.update(name_key(str(a)) for a in aliases if a)
    return names


async def field_values(
    conn: AsyncConnection, vault_id: int, name: str, containing: str, limit: int
) -> list[tuple[str, str, str]]:
    """(path, title, value) of the notes whose frontmatter field `name` holds
    `containing` (any case), newest first: e.g. the notes that saved a link to one site.
    Bodies are not read: a vault of saved articles holds megabytes of them."""
    pattern = "%" + containing.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    rows = await conn.execute(
        text(
            "SELECT e.path, e.title, e.fields ->> :name AS value FROM entries e"
            " WHERE e.vault_id = :vault AND e.fields ->> :name ILIKE :pattern"
            " ORDER BY e.updated DESC LIMIT :limit"
        ),
        {"vault": vault_id, "name": name, "pattern": pattern, "limit": limit},
    )
    return [(row.path, row.title, row.value) for row in rows]


async def names_in(
    conn: AsyncConnection, vault_id: int, categories: Sequence[str]
) -> list[tuple[str, str, str, list[str]]]:
    """(path, title, category, aliases) of every note in `categories`: the names a
    capture may mention (people, projects). Bodies are not read."""
    rows = await conn.execute(
        text(
            "SELECT e.path, e.title, e.category, e.fields -> 'aliases' AS aliases FROM entries e"
            " WHERE e.vault_id = :vault AND e.category = ANY(CAST(:categories AS text[]))"
        ),
        {"vault": vault_id, "categories": list(categories)},
    )
    out = []
    for row in rows:
        aliases = row.aliases if isinstance(row.aliases, list) else [row.aliases]
        out.append((row.path, row.title, row.category, [str(a) for a in aliases if a]))
    return out


async def names_mark(conn: AsyncConnection, vault_id: int) -> str:
    """A mark of the names `names_in` gives for people and projects, that changes when
    one can: a caller keeps what it built from them until then. It is the count of
    their rows written and dropped (storage.vault.schema.NAMED): a note's row is
    replaced, never updated, when its path, title or fields change. One row read,
    however many people a vault holds (counting their rows took 1.6 ms at 3,500)."""
    mark = await conn.scalar(
        text("SELECT name_changes FROM index_meta WHERE vault_id = :vault"), {"vault": vault_id}
    )
    return str(mark)


async def random_entry(
    conn: AsyncConnection,
    vault_id: int,
    filters: Filters,
    *,
    skip_folders: Sequence[str],
    closed: Sequence[str],
    draw: Callable[[int], int],
) -> Entry | None:
    """One note matching `filters`, picked by `draw(n)` (an index below n, the number
    of such notes): what resurfacing shows. Left out: a note in one of `skip_folders`
    (a folder name or path, at any depth, any case: `archive`, `digests`), a note whose
    status is one of `closed` (done, archived), one whose `archived` field is true."""
    where, params = _where(vault_id, filters)
    where += (
        " AND NOT (lower('/' || e.path) LIKE ANY(CAST(:skipped AS text[])))"
        " AND (e.status IS NULL OR lower(e.status) <> ALL(CAST(:closed AS text[])))"
        " AND lower(coalesce(e.fields ->> 'archived', '')) NOT IN ('true', 'yes')"
    )
    params["skipped"] = [
        "%/" + _escape_like(folder.strip("/").lower()) + "/%"
        for folder in skip_folders
        if folder.strip("/")
    ]
    params["closed"] = [c.lower() for c in closed]
    total = int(await conn.scalar(text(f"SELECT count(*) FROM entries e {where}"), params) or 0)
    if not total:
        return None
    params["offset"] = draw(total)
    row = (
        await conn.execute(
            text(
                f"SELECT {_ENTRY_COLUMNS} FROM entries e {where}"
                " ORDER BY e.path OFFSET :offset LIMIT 1"
            ),
            params,
        )
    ).first()
    return _entry(row) if row else None
