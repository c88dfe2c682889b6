"""Writing one vault's notes into the index tables, inside a transaction the caller holds.

Small changes and bulk loads share one path: rows of the notes being replaced are
removed (term document frequencies decremented first), then entries, postings,
terms, links and names go in, all in two round trips (storage.index.pipeline), and
chunk vectors (and a batch's many postings) with binary COPY.

One note Postgres refuses (a tag longer than an index row may be, a path too long
for one) must not keep the others out: when a write of many fails for what it was
given, `write_each` writes them again one by one, each behind a savepoint, and
leaves out the notes refused, each with why (`refusal`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.db.connection import UNSYNCED_COMMIT
from storage.index import pipeline
from storage.index.index_rows import Noted, link_rows, name_rows, note_rows
from storage.index.indexed_note import Document
from storage.index.pipeline import Step
from storage.index.storable import refusal
from storage.vault.schema import NAMED

log = logging.getLogger(__name__)

Vectors = Sequence[Sequence[Sequence[float]]]  # per note, one vector per chunk
# Told, after each write, the vault, the notes it left out (path, why) and the paths it
# settled (indexed, or dropped): app.skips keeps the first for `brainbot doctor`
# and clears them once settled.
WriteListener = Callable[[int, Sequence[tuple[str, str]], Sequence[str]], Awaitable[None]]

# A vault's writers take the advisory lock (VAULT_LOCK, vault id), so its term counts
# never deadlock or race, while writers of other vaults go on. All of them also hold
# INDEX_LOCK shared; what changes every vault's rows (the vector column, the HNSW
# index) takes it exclusively.
INDEX_LOCK = 0x6272_6169_6E69
VAULT_LOCK = 0x6269  # the first key of pg_advisory_xact_lock(int, int): "bi"

# A batch's postings up to this many go in the pipeline (one statement); more go by
# binary COPY (two round trips of their own), which is faster from about this many
# on: as fast at 300 to 1,000 rows, 1.8 times faster at 60,000.
PIPELINED_POSTINGS = 500

# Writing or dropping a row of a note that names someone or something counts in
# index_meta.name_changes (storage.index.lookups.names_mark).
_IS_NAMED = "category IN (" + ", ".join(f"'{c}'" for c in NAMED) + ")"

_REMOVE = text(
    f"""
    WITH gone AS (
        SELECT id, length, {_IS_NAMED} AS named FROM entries
        WHERE vault_id = :vault AND path = ANY(CAST(:paths AS text[]))
    ),
    counts AS (
        SELECT p.term, count(*) AS n FROM postings p JOIN gone g ON p.entry_id = g.id
        GROUP BY p.term
    ),
    dec AS (
        UPDATE terms t SET df = t.df - c.n FROM counts c
        WHERE t.vault_id = :vault AND t.term = c.term
    ),
    del AS (DELETE FROM entries e USING gone g WHERE e.id = g.id),
    meta AS (
        UPDATE index_meta SET
            doc_count = doc_count - (SELECT count(*) FROM gone),
            total_length = total_length - (SELECT coalesce(sum(length), 0) FROM gone),
            name_changes = name_changes + (SELECT count(*) FROM gone WHERE named)
        WHERE vault_id = :vault
    )
    SELECT count(*) FROM gone
    """
)
_RESERVE_IDS = text(
    "SELECT nextval(pg_get_serial_sequence('entries', 'id')) FROM generate_series(1, :n)"
)
_INSERT_ENTRY = text(
    """
    INSERT INTO entries (id, vault_id, path, category, title, status, tags, fields, body,
                         content_hash, frontmatter_error, updated, created, due, length,
                         embedded, tsv)
    VALUES (:id, :vault, :path, :category, :title, :status, :tags, CAST(:fields AS jsonb), :body,
            :content_hash, :frontmatter_error, :updated, :created, :due, :length, :embedded,
            to_tsvector('simple', :folded))
    """
)
_INSERT_POSTINGS = text(
    """
    INSERT INTO postings (vault_id, term, entry_id, tf, dl)
    SELECT :vault, * FROM unnest(CAST(:terms AS text[]), CAST(:ids AS int[]),
                                 CAST(:tfs AS int[]), CAST(:lengths AS int[]))
    """
)
_ADD_TERMS = text(
    """
    INSERT INTO terms (vault_id, term, df)
    SELECT :vault, * FROM unnest(CAST(:terms AS text[]), CAST(:dfs AS int[]))
    ON CONFLICT (vault_id, term) DO UPDATE SET df = terms.df + EXCLUDED.df
    """
)
_INSERT_LINK = text(
    """
    INSERT INTO links (vault_id, source_id, target_key, target_path, target_alt, context,
                       relation)
    VALUES (:vault, :source_id, :target_key, :target_path, :target_alt, :context, :relation)
    """
)
# A name keyed by its rarest word (the longest of the rarest, then the first written):
# the fewest names per key. Read in the same statement that writes it.
_INSERT_NAME = text(
    """
    INSERT INTO note_names (vault_id, entry_id, name, key_term, terms)
    SELECT :vault, :entry_id, :name,
           (SELECT w.term FROM unnest(CAST(:terms AS text[])) WITH ORDINALITY AS w(term, n)
            LEFT JOIN terms t ON t.vault_id = :vault AND t.term = w.term
            ORDER BY coalesce(t.df, 0), length(w.term) DESC, w.n LIMIT 1),
           CAST(:terms AS text[])
    """
)
_ADVANCE = text(
    "UPDATE index_meta SET last_commit = :commit WHERE vault_id = :vault"
    " AND (last_commit IS NOT DISTINCT FROM :parent OR last_commit = :commit)"
)
_ADD_STATS = text(
    "UPDATE index_meta SET doc_count = doc_count + :n, total_length = total_length + :length,"
    " name_changes = name_changes + :named WHERE vault_id = :vault"
)
# _ADD_STATS and _ADVANCE in one trip: the counts always grow, the commit moves only
# from its parent (or is there already); the row says whether the index is at `commit`.
_ADD_STATS_AND_ADVANCE = text(
    "UPDATE index_meta SET doc_count = doc_count + :n, total_length = total_length + :length,"
    " name_changes = name_changes + :named, last_commit = CASE"
    " WHEN last_commit IS NOT DISTINCT FROM :parent OR last_commit = :commit"
    " THEN :commit ELSE last_commit END"
    " WHERE vault_id = :vault RETURNING last_commit = :commit AS advanced"
)


# The index is derived: a transaction of it that a crash of Postgres or of the machine
# loses is made again by the next sync (every store's opening runs one, from the commit
# the index last recorded, lost with it). Its commit need not wait for the disk, and
# the event's finish flushes it before the reply goes out (storage.db.connection).
_UNSYNCED = text(UNSYNCED_COMMIT)
_LOCK = text("SELECT pg_advisory_xact_lock_shared(:key), pg_advisory_xact_lock(:kind, :vault)")


def _lock_keys(vault_id: int) -> dict[str, int]:
    return {"key": INDEX_LOCK, "kind": VAULT_LOCK, "vault": vault_id}


def _advance_keys(vault_id: int, commit: str, parent: str | None) -> dict[str, Any]:
    return {"vault": vault_id, "commit": commit, "parent": parent}


async def lock(conn: AsyncConnection, vault_id: int) -> None:
    """Serialise the writers of one vault (across processes) until the transaction ends:
    the shared lock of every writer first (see `lock_all`), then the vault's own."""
    await conn.execute(_LOCK, _lock_keys(vault_id))


async def lock_all(conn: AsyncConnection) -> None:
    """Wait for the writers of every vault to finish, and keep new ones out until the
    transaction ends: for changes to the rows of all vaults or the shared vector index."""
    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": INDEX_LOCK})


async def remove(conn: AsyncConnection, vault_id: int, paths: Sequence[str]) -> int:
    """Drop the notes at `paths` with everything derived from them; how many there were."""
    if not paths:
        return 0
    params = {"vault": vault_id, "paths": list(paths)}
    return int((await conn.execute(_REMOVE, params)).scalar_one())


async def recount(conn: AsyncConnection, vault_id: int) -> None:
    """Count the vault's document frequencies, notes and lengths again from what is
    indexed (after a rebuild: whatever earlier writes left askew is gone)."""
    params = {"vault": vault_id}
    await conn.execute(text("DELETE FROM terms WHERE vault_id = :vault"), params)
    await conn.execute(
        text(
            "INSERT INTO terms (vault_id, term, df) SELECT :vault, term, count(*)"
            " FROM postings WHERE vault_id = :vault GROUP BY term"
        ),
        params,
    )
    await conn.execute(
        text(
            "UPDATE index_meta SET"
            " doc_count = (SELECT count(*) FROM entries WHERE vault_id = :vault),"
            " total_length = (SELECT coalesce(sum(length), 0) FROM entries"
            " WHERE vault_id = :vault), name_changes = name_changes + 1 WHERE vault_id = :vault"
        ),
        params,
    )


async def insert_links_and_names(
    conn: AsyncConnection, vault_id: int, notes: Sequence[Noted]
) -> None:
    """The link rows and name rows of notes, as (entry id, links, names)."""
    links = link_rows(vault_id, notes)
    if links:
        await conn.execute(_INSERT_LINK, links)
    names = name_rows(vault_id, notes)
    if names:
        await conn.execute(_INSERT_NAME, names)


async def insert_chunks(
    conn: AsyncConnection, vault_id: int, rows: Iterable[tuple[int, int, int, Sequence[float]]]
) -> None:
    """Chunks of the vault's notes as (entry id, ordinal, start offset, vector)."""
    await pipeline.copy_rows(
        conn,
        "COPY chunks (vault_id, entry_id, ord, start, embedding) FROM STDIN (FORMAT BINARY)",
        # bytea: the vector's bytes pass through as they are
        ["int4", "int4", "int4", "int4", "bytea"],
        ((vault_id, e, o, s, pipeline.vector_bytes(v)) for e, o, s, v in rows),
    )


async def write(
    conn: AsyncConnection,
    vault_id: int,
    docs: Sequence[Document],
    vectors: Vectors | None,
    commit: tuple[str, str | None] | None = None,
    *,
    removed: Sequence[str] = (),
    lock_first: bool = False,
    unsynced: bool = False,
) -> bool:
    """Replace the index rows of `docs` (vectors: per doc, one per chunk; None = not
    embedded), drop the notes at `removed`, and record `commit` with its parent if
    given (see `advance`): whether it was recorded. With `lock_first`, the vault's
    lock (`lock`) is taken first; with `unsynced`, the transaction's commit does not
    wait for the disk (`_UNSYNCED`). The statements go in two round trips (the second
    needs the ids the first reserves); then, by COPY, the chunks and a batch's many
    postings."""
    first = [Step(_UNSYNCED)] if unsynced else []
    if lock_first:
        first.append(Step(_LOCK, _lock_keys(vault_id)))
    gone = [*removed, *(d.entry.path for d in docs)]
    if gone:
        first.append(Step(_REMOVE, {"vault": vault_id, "paths": gone}))
    if not docs:
        if commit is not None:
            first.append(Step(_ADVANCE, _advance_keys(vault_id, *commit)))
        answers = await pipeline.run(conn, first) if first else []
        return commit is not None and bool(answers[-1].rowcount)
    first.append(Step(_RESERVE_IDS, {"n": len(docs)}))
    ids = [int(row[0]) for row in (await pipeline.run(conn, first))[-1].rows]
    stats = {
        "vault": vault_id,
        "n": len(docs),
        "length": sum(d.length for d in docs),
        "named": sum(d.entry.category in NAMED for d in docs),
    }
    moved = None if commit is None else {**stats, **_advance_keys(vault_id, *commit)}
    rows = note_rows(vault_id, ids, docs, embedded=vectors is not None)
    postings = rows.postings
    piped = len(postings["terms"]) <= PIPELINED_POSTINGS
    second = [
        Step(_INSERT_ENTRY, many=rows.entries),
        *([Step(_INSERT_POSTINGS, postings)] if piped else []),
        Step(_ADD_TERMS, rows.terms),
        Step(_INSERT_LINK, many=rows.links),
        Step(_INSERT_NAME, many=rows.names),
        Step(_ADD_STATS, stats) if moved is None else Step(_ADD_STATS_AND_ADVANCE, moved),
    ]
    last = (await pipeline.run(conn, second))[-1]
    if not piped:
        columns = (postings[name] for name in ("terms", "ids", "tfs", "lengths"))
        await pipeline.copy_rows(
            conn,
            "COPY postings (vault_id, term, entry_id, tf, dl) FROM STDIN (FORMAT BINARY)",
            ["int4", "text", "int4", "int4", "int4"],
            ((vault_id, *row) for row in zip(*columns, strict=True)),
        )
    if vectors is not None:
        await insert_chunks(
            conn,
            vault_id,
            (
                (entry_id, number, chunk.start, vector)
                for entry_id, d, doc_vectors in zip(ids, docs, vectors, strict=True)
                for number, (chunk, vector) in enumerate(zip(d.chunks, doc_vectors, strict=True))
            ),
        )
    return moved is not None and bool(last.rows and last.rows[0][0])


async def write_each(
    conn: AsyncConnection, vault_id: int, docs: Sequence[Document], vectors: Vectors | None
) -> list[tuple[str, str]]:
    """`write` note by note, each behind a savepoint: what Postgres refuses leaves no
    rows (its older ones go too: the index never shows what the file no longer says)
    and is returned as (path, why); the other notes are written. An error that is not
    the note's (see `refusal`) is raised."""
    refused: list[tuple[str, str]] = []
    for number, doc in enumerate(docs):
        try:
            async with conn.begin_nested():
                await write(conn, vault_id, [doc], None if vectors is None else [vectors[number]])
        except Exception as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            await remove(conn, vault_id, [doc.entry.path])
            refused.append((doc.entry.path, reason))
    return refused


async def advance(conn: AsyncConnection, vault_id: int, commit: str, parent: str | None) -> bool:
    """Record `commit` as the one the index reflects, only if it was at `parent` (or
    at `commit` already): see storage.index.index.Index.advance."""
    result = await conn.execute(_ADVANCE, _advance_keys(vault_id, commit, parent))
    return bool(result.rowcount)


async def replace_notes(
    engine: AsyncEngine,
    vault_id: int,
    docs: Sequence[Document],
    vectors: Vectors | None,
    *,
    removed: Sequence[str] = (),
    commit: tuple[str, str | None] | None = None,
) -> tuple[list[tuple[str, str]], bool]:
    """In one transaction under the vault's lock: drop the notes at `removed`, write
    `docs` and record `commit` (with its parent, see `advance`). Should Postgres refuse
    what one note holds, the transaction is made again with the notes written one by
    one (`write_each`). The notes left out, as (path, why), and whether the commit was
    recorded."""
    try:
        return await _replace(engine, vault_id, docs, vectors, removed, commit, one_by_one=False)
    except Exception as exc:
        reason = refusal(exc)
        if not docs or reason is None:
            raise
        log.warning(
            "index: vault %d: a note was refused (%s); writing one by one", vault_id, reason
        )
    return await _replace(engine, vault_id, docs, vectors, removed, commit, one_by_one=True)


async def _replace(
    engine: AsyncEngine,
    vault_id: int,
    docs: Sequence[Document],
    vectors: Vectors | None,
    removed: Sequence[str],
    commit: tuple[str, str | None] | None,
    *,
    one_by_one: bool,
) -> tuple[list[tuple[str, str]], bool]:
    refused: list[tuple[str, str]] = []
    async with engine.begin() as conn:
        if one_by_one:
            await conn.execute(_UNSYNCED)
            await lock(conn, vault_id)
            await remove(conn, vault_id, removed)
            refused = await write_each(conn, vault_id, docs, vectors)
            advanced = commit is not None and await advance(conn, vault_id, *commit)
        else:
            advanced = await write(
                conn,
                vault_id,
                docs,
                vectors,
                commit,
                removed=removed,
                lock_first=True,
                unsynced=True,
            )
    return refused, advanced
