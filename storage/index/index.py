"""The search index over a vault: Postgres tables derived from the notes.

`Index` writes notes in (one commit at a time; in bulk: storage.index.bulk),
remembers which vault commit it reflects, and answers searches, listings and
backlinks. It knows nothing of git; `storage.store.Store` keeps it in step with the
vault. Many vaults share the tables: an `Index` reads and writes only its vault's rows.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, TypeVar

from sqlalchemy import text

from storage.db.connection import Database, autocommit
from storage.entry import Backlink, Entry, SearchResults
from storage.index import indexer, lookups
from storage.index.embeddings import (
    Closable,
    Embedder,
    EmbeddingError,
    NeedsProbe,
    QueryEmbedder,
)
from storage.index.filters import Filters
from storage.index.indexed_note import Document, prepare_each
from storage.index.query import SearchQuery
from storage.index.related import Baselines, Neighbour, neighbours
from storage.index.sides import Embedding, Sides, gather, query_filters
from storage.index.snippets import matched_by
from storage.index.vector_setup import prepare_vectors, probe

log = logging.getLogger(__name__)
_T = TypeVar("_T")

CANDIDATES = 30  # each side of a hybrid search ranks at least this many notes
KEYWORD_ONLY = "keyword search only: no embeddings are configured"
NO_VECTORS = "keyword search only: this CPU cannot run pgvector (see `brainbot doctor`)"
REEMBEDDING = (
    "notes are being embedded in the background: those without vectors yet are found by "
    "keyword only"
)


UPSERT_BATCH = 500  # notes per transaction of `upsert` (a sync finishing an import)


class Index:
    """One vault's notes in Postgres: BM25 terms, chunk vectors, links and a listing table."""

    def __init__(
        self,
        database: Database,
        embedder: Embedder | None,
        *,
        vault_id: int = 1,
        reembed: bool = False,
    ) -> None:
        self.database = database
        # A database without a vector side (storage.db.vector_side) takes no embedder.
        self.embedder = embedder if database.vectors else None
        self.vault_id = vault_id
        self.reembed = reembed and database.vectors  # another embedder's may be replaced
        self.dimensions: int | None = None
        self.needs_embedding = False  # notes without vectors wait for `bulk.embed_pending`
        self.embedding: asyncio.Task[int] | None = None  # see storage.index.backfill
        # False in one-shot commands (Store.open's `embed_in_background`): many notes
        # waiting for vectors are left for `brainbot run`.
        self.embed_in_background = True
        self.on_written: indexer.WriteListener | None = None
        self._baselines = Baselines() if database.vectors else None

    @classmethod
    async def open(
        cls,
        database: Database,
        embedder: Embedder | None,
        *,
        vault_id: int = 1,
        reembed: bool = False,
    ) -> Index:
        """Ready the index of vault `vault_id` for `embedder`. Vectors another embedder
        made are never dropped on the way: with no embedder they wait unused (keyword
        search), and a different one is refused (`EmbedderChanged`) unless `reembed` lets
        it replace them, those of every vault (all share one vector column)."""
        index = cls(database, embedder, vault_id=vault_id, reembed=reembed)
        if isinstance(index.embedder, NeedsProbe):
            await probe(database, index.embedder)
        index.dimensions = index.embedder.dimensions if index.embedder else None
        index.needs_embedding = await prepare_vectors(
            database,
            vault_id,
            index.embedder.name if index.embedder else None,
            index.dimensions,
            reembed=index.reembed,
        )
        return index

    async def stop_embedding(self) -> None:
        """Stop the background embedding (storage.index.backfill); what it embedded
        stays, and the next open goes on from there."""
        task, self.embedding = self.embedding, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def close(self) -> None:
        """Stop the background embedding and release the embedder's client (indexes
        sharing one embedder, as storage.vaults' do, stop theirs and close it once)."""
        await self.stop_embedding()
        if isinstance(self.embedder, Closable):
            await self.embedder.close()

    # ---- writing -------------------------------------------------------------------

    async def embed_documents(self, docs: Sequence[Document]) -> list[list[list[float]]] | None:
        """Per document, one vector per chunk; None when there is no embedder or it failed
        (the notes are then searchable by keyword and embedded by a later sync)."""
        if self.embedder is None:
            return None
        # A passage said twice (a template, a note in two folders) is embedded once.
        unique = list(dict.fromkeys(chunk.text for d in docs for chunk in d.chunks))
        try:
            vectors = dict(zip(unique, await self.embedder.embed(unique), strict=True))
        except EmbeddingError as exc:
            log.warning("index: embedding failed, notes stay keyword-only for now: %s", exc)
            return None
        return [[vectors[chunk.text] for chunk in d.chunks] for d in docs]

    async def upsert(
        self, entries: Sequence[Entry], modified: Mapping[str, datetime] | None = None
    ) -> list[tuple[str, str]]:
        """Index `entries` (replacing what was indexed at their paths), skipping notes whose
        content did not change. The notes Postgres refused (`_replace`), as (path, why)."""
        current = await self.content_hashes([e.path for e in entries])
        todo = [e for e in entries if current.get(e.path) != e.content_hash]
        refused: list[tuple[str, str]] = []
        for start in range(0, len(todo), UPSERT_BATCH):  # short transactions, as bulk's
            refused += (await self._replace(todo[start : start + UPSERT_BATCH], modified or {}))[0]
        return refused

    async def follow(
        self,
        written: Entry | None,
        entries: Sequence[Entry],
        modified: Mapping[str, datetime],
        removed: Sequence[str],
        *,
        commit: str,
        parent: str | None,
    ) -> bool:
        """Index one vault commit in one transaction: the note it wrote, its other notes
        (unchanged ones skipped), the notes it removed, and the commit itself (see
        `advance`, whose answer this is)."""
        current = await self.content_hashes([e.path for e in entries])
        todo = [e for e in entries if current.get(e.path) != e.content_hash]
        if written is not None:
            todo.append(written)
        _, advanced = await self._replace(todo, modified, removed, (commit, parent))
        return advanced

    async def _replace(
        self,
        entries: Sequence[Entry],
        modified: Mapping[str, datetime],
        removed: Sequence[str] = (),
        commit: tuple[str, str | None] | None = None,
    ) -> tuple[list[tuple[str, str]], bool]:
        """Index `entries`, drop `removed`, record `commit` (indexer.replace_notes); a
        note that cannot be prepared or that Postgres refuses is left out, with its
        older rows, and the others go in. What was left out, (path, why), also told to
        `on_written`; whether `commit` was recorded."""
        if not entries and not removed and commit is None:
            return [], False
        docs, refused = prepare_each(entries, modified)
        vectors = await self.embed_documents(docs) if docs else None
        gone = [*removed, *(path for path, _ in refused)]
        left_out, advanced = await indexer.replace_notes(
            self.database.engine, self.vault_id, docs, vectors, removed=gone, commit=commit
        )
        refused += left_out
        out = {path for path, _ in left_out}
        await self.written(
            refused, [*removed, *(d.entry.path for d in docs if d.entry.path not in out)]
        )
        return refused, advanced

    async def remove(self, paths: Sequence[str]) -> int:
        """Forget the notes at `paths`; how many were indexed."""
        if not paths:
            return 0
        async with self.database.engine.begin() as conn:
            await indexer.lock(conn, self.vault_id)
            count = await indexer.remove(conn, self.vault_id, paths)
        await self.written([], paths)
        return count

    async def written(self, refused: Sequence[tuple[str, str]], settled: Sequence[str]) -> None:
        """Tell `on_written`, when set, what a write left out and which paths it settled."""
        if self.on_written is not None:
            await self.on_written(self.vault_id, refused, settled)

    # ---- bookkeeping ---------------------------------------------------------------

    async def content_hashes(
        self, paths: Sequence[str], *, embedded: bool = False
    ) -> dict[str, str]:
        """The indexed content hash of each of `paths` that is indexed. A note still
        waiting for vectors counts as indexed (it is not read and written again for
        them: storage.index.backfill embeds it), unless `embedded` asks for notes
        with vectors only (where there is an embedder): a look for what a sync
        should do (app.watch), which then embeds it."""
        if not paths:
            return {}
        waiting = " AND embedded" if embedded and self.embedder is not None else ""
        async with autocommit(self.database.engine).connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT path, content_hash FROM entries WHERE vault_id = :vault"
                    f" AND path = ANY(CAST(:paths AS text[])){waiting}"
                ),
                {"vault": self.vault_id, "paths": list(paths)},
            )
            return {r.path: r.content_hash for r in rows}

    async def last_commit(self) -> str | None:
        """The vault commit the index reflects (None before the first indexing)."""
        async with autocommit(self.database.engine).connect() as conn:
            value = await conn.execute(
                text("SELECT last_commit FROM index_meta WHERE vault_id = :vault"),
                {"vault": self.vault_id},
            )
            result: str | None = value.scalar_one_or_none()
            return result

    async def advance(self, commit: str, *, parent: str | None) -> bool:
        """Record `commit` as indexed only if the index was at `parent`: if not, some
        change in between (made outside) is not indexed yet and sync must find it.
        An index already at `commit` counts too: another process's sync (its vault
        watcher saw our file) indexed it first, and there is nothing left to find."""
        async with self.database.engine.begin() as conn:
            return await indexer.advance(conn, self.vault_id, commit, parent)

    async def mark_synced(self, commit: str | None, recheck: Sequence[str] = ()) -> None:
        """Record that the index reflects `commit`, plus paths to look at again next sync."""
        async with self.database.engine.begin() as conn:
            await conn.execute(
                text(
                    "UPDATE index_meta SET last_commit = :commit, recheck = :recheck"
                    " WHERE vault_id = :vault"
                ),
                {"vault": self.vault_id, "commit": commit, "recheck": list(recheck)},
            )

    async def recheck_paths(self) -> list[str]:
        async with autocommit(self.database.engine).connect() as conn:
            value = await conn.execute(
                text("SELECT recheck FROM index_meta WHERE vault_id = :vault"),
                {"vault": self.vault_id},
            )
            return list(value.scalar_one_or_none() or [])

    async def paths(self) -> list[str]:
        """Every indexed path (for reconciling after the vault's history was rewritten)."""
        async with autocommit(self.database.engine).connect() as conn:
            rows = await conn.execute(
                text("SELECT path FROM entries WHERE vault_id = :vault"), {"vault": self.vault_id}
            )
            return list(rows.scalars())

    async def count(self) -> int:
        return await self._lookup(lookups.count_entries, Filters())

    # ---- reading -------------------------------------------------------------------

    async def embed_queries(self, queries: Sequence[str]) -> list[list[float]]:
        """Vectors of search queries (some models embed them unlike notes)."""
        assert self.embedder is not None
        if isinstance(self.embedder, QueryEmbedder):
            return await self.embedder.embed_queries(queries)
        return await self.embedder.embed(queries)

    async def search(
        self,
        query: str,
        *,
        category: str | None = None,
        tags: Sequence[str] = (),
        status: str | None = None,
        modified_after: datetime | date | None = None,
        modified_before: datetime | date | None = None,
        limit: int = 10,
        filed: Filters | None = None,
    ) -> SearchResults:
        """Hybrid search: BM25 and vector rankings fused by reciprocal rank; keyword only
        without an embedder (or when it fails, with a note saying so). `query` may use
        the search syntax (storage.index.query); its filters join the arguments'. With
        filters and no words, the matching notes come newest first; when filters leave
        nothing, `empty` says which."""
        given = Filters(category, tuple(tags), status, modified_after, modified_before)
        parsed, filters = await query_filters(
            self.database.engine, self.vault_id, query, given, filed
        )
        if not parsed.words and filters.active:
            return await self._filtered(filters, limit)
        depth = max(limit * 3, CANDIDATES)
        embedding = self._embedding(parsed)
        notes = [] if self.embedder else [KEYWORD_ONLY if self.database.vectors else NO_VECTORS]
        if self.embedding is not None and not self.embedding.done():
            notes.append(REEMBEDDING)
        try:
            async with self.database.engine.begin() as conn:
                sides = await gather(conn, self.vault_id, parsed, filters, embedding, depth, notes)
                ranked = sides.fused()[:limit]
                mode = "keyword" if sides.vector is None else "hybrid"
                vector = sides.vector or []
                starts = {v[0]: v[2] for v in vector}
                matched = matched_by([k for k, _ in sides.keyword.hits], [v[0] for v in vector])
                found = await lookups.hits(conn, self.vault_id, ranked, parsed, starts, matched)
                empty = None if found else await lookups.why_empty(conn, self.vault_id, filters)
        finally:
            if embedding is not None and not embedding.done():
                embedding.cancel()
        return SearchResults(tuple(found), mode, tuple(notes), empty)

    async def sides(self, query: str, *, depth: int = CANDIDATES) -> Sides:
        """The two candidate lists `search` fuses for `query`, `depth` notes each (see
        storage.index.sides): what bench/fusion.py chooses the fusion on."""
        parsed, filters = await query_filters(
            self.database.engine, self.vault_id, query, Filters(), None
        )
        embedding = self._embedding(parsed)
        try:
            async with self.database.engine.begin() as conn:
                return await gather(conn, self.vault_id, parsed, filters, embedding, depth, [])
        finally:
            if embedding is not None and not embedding.done():
                embedding.cancel()

    def _embedding(self, parsed: SearchQuery) -> Embedding | None:
        """The query's vector, started while the keyword side ranks (None: keyword only)."""
        if self.embedder is None or not parsed.text.strip():
            return None
        return asyncio.ensure_future(self.embed_queries([parsed.text]))

    async def _filtered(self, filters: Filters, limit: int) -> SearchResults:
        """No words: the notes the filters let through, newest first."""
        async with autocommit(self.database.engine).connect() as conn:
            found = await lookups.recent_hits(conn, self.vault_id, filters, limit)
            empty = None if found else await lookups.why_empty(conn, self.vault_id, filters)
        return SearchResults(tuple(found), "filter", (), empty)

    async def _lookup(self, read: Callable[..., Awaitable[_T]], *args: Any, **kw: Any) -> _T:
        """`read(conn, vault_id, *args, **kw)` on an autocommit connection: one statement."""
        async with autocommit(self.database.engine).connect() as conn:
            return await read(conn, self.vault_id, *args, **kw)

    async def list_entries(
        self,
        *,
        category: str | None = None,
        status: str | None = None,
        tag: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> list[Entry]:
        """Notes newest first (by their `updated` field), optionally filtered."""
        filters = Filters(category, (tag,) if tag else (), status)
        return await self._lookup(lookups.list_entries, filters, limit, offset)

    async def recent_titles(self, limit: int) -> list[tuple[str, str]]:
        """(path, title) of the notes updated last, newest first."""
        return await self._lookup(lookups.recent_titles, limit)

    async def count_entries(
        self, *, category: str | None = None, status: str | None = None, tag: str | None = None
    ) -> int:
        """How many notes `list_entries` would give without a limit."""
        filters = Filters(category, (tag,) if tag else (), status)
        return await self._lookup(lookups.count_entries, filters)

    async def find(self, name: str, limit: int = 10, *, exact: bool = False) -> list[Entry]:
        """Notes called `name` (path, title, file name or alias); see `entries_named`."""
        return await self._lookup(lookups.entries_named, name, limit, exact=exact)

    async def names_in(self, categories: Sequence[str]) -> list[tuple[str, str, str, list[str]]]:
        """(path, title, category, aliases) of the notes in `categories` (see lookups)."""
        return await self._lookup(lookups.names_in, categories)

    async def names_mark(self) -> str:
        """Changes when `names_in` would give other people or projects (see lookups)."""
        return await self._lookup(lookups.names_mark)

    async def get(self, path: str) -> Entry | None:
        return await self._lookup(lookups.entry_at, path)

    async def field_values(
        self, name: str, containing: str, limit: int = 50
    ) -> list[tuple[str, str, str]]:
        """(path, title, value) of notes whose field `name` contains `containing`."""
        return await self._lookup(lookups.field_values, name, containing, limit)

    async def related(self, path: str, limit: int = 20) -> list[Neighbour]:
        """The notes closest to the note at `path`, scored so that one threshold can
        judge them (storage.index.related)."""
        return await self._lookup(neighbours, path, self._baselines, limit=limit)

    async def backlinks(self, path: str, title: str | None = None) -> list[Backlink]:
        """Notes linking to the note at `path` (also by its `title`), newest first."""
        async with autocommit(self.database.engine).connect() as conn:
            if title is None:
                entry = await lookups.entry_at(conn, self.vault_id, path)
                title = entry.title if entry else None
            return await lookups.backlinks(conn, self.vault_id, path, title)
