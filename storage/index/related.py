"""The notes of a vault closest to one of its notes, each with two scores that mean the
same in every vault and for every note, so one threshold can judge them (bot.connect).

Search scores do not: a fused rank score is high for the best hit of any query, and
a BM25 score grows with the query's length. So:

- `keyword`: BM25 of the other note over the note's own most distinctive terms,
  divided by the note's score against itself over those terms (1.0: as close as the
  note is to itself; unrelated notes score near 0).
- `similarity`: cosine of the note's vector (the mean of its chunks, read from the
  index: no embedding call) with the other note's best chunk, as a z-score against
  the cosines of random pairs of the vault's chunks. Embedders differ in where they
  put unrelated texts (multilingual-e5 near 0.8, others near 0.1); the z-score says
  how unusual the closeness is for this embedder and this vault. The baseline is
  sampled once per vault and kept for BASELINE_SECONDS (`Baselines`).

Notes already tied to the note (it links to them, they link to it, as today's daily
note does) and generated digests are left out: suggesting them says nothing new.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.index.filters import Filters
from storage.index.lookups import backlinks
from storage.index.note_links import Link, reaches
from storage.index.search import K1, B, vector_literal, vector_ranking
from storage.vault.paths import NOT_THOUGHTS

TERMS = 24  # the note's most distinctive terms make the keyword query...
# ...as long as their postings stay within this many (the query's cost in a large
# vault; in the calibration's vault of 800 notes it never binds)
POSTINGS = 3000
COMMON_SHARE = 0.2  # terms in more notes than this share say little about a topic...
COMMON_FLOOR = 10  # ...once the vault is large enough for shares to mean something
# Function words: in a young vault of a few notes no word is common enough for BM25
# to discount it, and "of" alone made a car-insurance note "related" to a sourdough
# one. The commonest of the languages people here write in; the rest is left to BM25.
_FUNCTION_WORDS = """
    a an and are as at be but by for from had has have he her his i if in into is it
    its me my no not of on or our she so than that the their them then there these they
    this to too up us was we were what when which who will with you your
    aber als am an auch auf aus bei bin bis das dass dem den der des die du ein eine
    einem einen einer er es fur hat ich ihr im in ist ja mit nach nicht noch nur oder
    sich sie sind so uber um und uns von vor war wie wir zu zum zur
    au aux avec ce ces dans de des du elle en et il je la le les leur lui ma mais me
    mes mon ne nous on ou par pas pour qu que qui sa se ses son sur ta te tu un une
    vous y al como con el es las lo los mas muy para pero por se su sus del
    """
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())  # folded, as the index's terms are
CANDIDATES = 20  # each side ranks this many notes
BASELINE_PAIRS = 160  # chunks sampled for the random-pair baseline (160 x 159 / 2 pairs)
BASELINE_SECONDS = 3600.0
# Pairs of notes below which there is no baseline (a vault of under ten notes): the
# words alone decide there.
BASELINE_LEAST = 45
# Past this many vector values (chunks x dimensions) the note's nearest chunks come from
# the HNSW index, not an exact scan: a search's answer must be exact, a suggestion of
# three notes need not, and must not cost the person's next message its time (an exact
# scan of 10,000 notes took 20 ms of the lookup's 30).
EXACT_VALUES = 5_000 * 384


@dataclass(frozen=True)
class Neighbour:
    """Another note and how close it is to the note asked about (see the module doc);
    `similarity` is None without vectors."""

    path: str
    title: str
    keyword: float
    similarity: float | None
    shared: int = 0  # how many of the note's chosen terms it holds


@dataclass(frozen=True)
class Baseline:
    mean: float
    spread: float


class Baselines:
    """Per vault, the cosine of random pairs of its chunks (mean, standard deviation),
    sampled again after BASELINE_SECONDS."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[float, Baseline | None]] = {}

    async def of(self, conn: AsyncConnection, vault_id: int) -> Baseline | None:
        kept = self._kept.get(vault_id)
        now = time.monotonic()
        if kept is not None and now - kept[0] < BASELINE_SECONDS:
            return kept[1]
        row = (await conn.execute(_BASELINE, {"vault": vault_id, "n": BASELINE_PAIRS})).one()
        baseline = None
        if row.pairs and row.pairs >= BASELINE_LEAST and row.spread and row.spread > 1e-6:
            baseline = Baseline(float(row.mean), float(row.spread))
        self._kept[vault_id] = (now, baseline)
        return baseline


_BASELINE = text(
    """
    WITH pick AS (
        SELECT entry_id, embedding FROM chunks
        WHERE vault_id = :vault AND embedding IS NOT NULL
        ORDER BY random() LIMIT :n
    )
    SELECT avg(1 - (a.embedding <=> b.embedding)) AS mean,
           stddev_samp(1 - (a.embedding <=> b.embedding)) AS spread,
           count(*) AS pairs
    FROM pick a JOIN pick b ON a.entry_id < b.entry_id
    """
)

# The note, the vault's statistics, the note's mean vector, the notes it links to,
# and its terms that occur in some other note but not in most (with what BM25 needs
# to weigh them in the note itself): one trip.
_NOTE = """
    WITH meta AS (
        SELECT greatest(doc_count, 1) AS n,
               greatest(total_length::float8 / greatest(doc_count, 1), 1.0) AS avgdl
        FROM index_meta WHERE vault_id = :vault
    )
    SELECT e.id, e.title, meta.n, meta.avgdl, {vector} AS vector,
           (SELECT json_agg(json_build_array(l.target_key, l.target_path, l.target_alt))
            FROM links l WHERE l.source_id = e.id) AS linked,
           (SELECT json_agg(json_build_array(p.term, t.df, p.tf, p.dl)) FROM postings p
            JOIN terms t ON t.vault_id = p.vault_id AND t.term = p.term
            WHERE p.vault_id = :vault AND p.entry_id = e.id AND t.df > 1
              AND t.df <= greatest(:floor, meta.n * :share)) AS terms
    FROM entries e CROSS JOIN meta WHERE e.vault_id = :vault AND e.path = :path
    """
_NOTE_WITH_VECTOR = text(
    _NOTE.format(
        vector="(SELECT avg(c.embedding)::text FROM chunks c"
        " WHERE c.entry_id = e.id AND c.embedding IS NOT NULL)"
    )
)
# A database without a vector side (storage.db.vector_side) has no column to read.
_NOTE_WITHOUT_VECTOR = text(_NOTE.format(vector="NULL"))

# Summed over the postings alone; the few best notes are joined to their rows after.
_SCORES = text(
    """
    WITH scored AS (
        SELECT p.entry_id, count(*) AS shared,
               sum(q.idf * p.tf * (:k1 + 1) / (p.tf + :k1 * (1 - :b + :b * p.dl / :avgdl)))
                   AS score
        FROM unnest(CAST(:terms AS text[]), CAST(:idfs AS float8[])) AS q(term, idf)
        JOIN postings p ON p.vault_id = :vault AND p.term = q.term
        WHERE p.entry_id <> :entry
        GROUP BY p.entry_id
        ORDER BY score DESC, p.entry_id LIMIT :limit
    )
    SELECT s.entry_id, s.shared, s.score, e.path, e.title FROM scored s
    JOIN entries e ON e.id = s.entry_id
    WHERE NOT (e.category = ANY(CAST(:left_out AS text[])))
    """
)

_TITLES = text(
    "SELECT id, path, title, category FROM entries"
    " WHERE vault_id = :vault AND id = ANY(CAST(:ids AS int[]))"
)

_COSINES = text(
    "SELECT entry_id, max(1 - (embedding <=> CAST(:vector AS vector))) FROM chunks"
    " WHERE entry_id = ANY(CAST(:ids AS int[])) AND embedding IS NOT NULL GROUP BY entry_id"
)


def _bm25(idf: float, tf: int, dl: int, avgdl: float) -> float:
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))


async def neighbours(
    conn: AsyncConnection,
    vault_id: int,
    path: str,
    baselines: Baselines | None,
    *,
    limit: int = CANDIDATES,
) -> list[Neighbour]:
    """The notes of vault `vault_id` closest to the note at `path` by either side, each
    scored on both (see the module doc), best keyword score first; [] when the note
    is not indexed. `baselines` is None where the database has no vector side: by
    words alone."""
    params = {"vault": vault_id, "path": path, "floor": COMMON_FLOOR, "share": COMMON_SHARE}
    query = _NOTE_WITHOUT_VECTOR if baselines is None else _NOTE_WITH_VECTOR
    note = (await conn.execute(query, params)).one_or_none()
    if note is None:
        return []
    n, avgdl = float(note.n), float(note.avgdl)
    weighted = []
    for term, df, tf, dl in note.terms or ():
        if term in FUNCTION_WORDS or (term.isascii() and len(term) < 3):
            continue
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        weighted.append((_bm25(idf, tf, dl, avgdl), term, idf, int(df)))
    weighted.sort(reverse=True)
    chosen: list[tuple[float, str, float]] = []
    budget = POSTINGS
    for weight, term, idf, df in weighted:
        if len(chosen) < TERMS and df <= budget:
            chosen.append((weight, term, idf))
            budget -= df
    itself = sum(w for w, _, _ in chosen)
    keyword: dict[int, float] = {}
    shared: dict[int, int] = {}
    titles: dict[int, tuple[str, str]] = {}
    if chosen and itself > 0:
        params = {
            "vault": vault_id,
            "entry": note.id,
            "terms": [t for _, t, _ in chosen],
            "idfs": [i for _, _, i in chosen],
            "k1": K1,
            "b": B,
            "avgdl": avgdl,
            "left_out": list(NOT_THOUGHTS),
            "limit": limit,
        }
        for r in await conn.execute(_SCORES, params):
            keyword[int(r.entry_id)] = min(float(r.score) / itself, 1.0)
            shared[int(r.entry_id)] = int(r.shared)
            titles[int(r.entry_id)] = (r.path, r.title)
    similarity: dict[int, float] = {}
    if note.vector is not None and baselines is not None:
        baseline = await baselines.of(conn, vault_id)
        if baseline is not None:
            vector = [float(x) for x in note.vector.strip("[]").split(",")]
            nearest = await vector_ranking(
                conn, vault_id, vector, Filters(), limit + 1, exact_values=EXACT_VALUES
            )
            cosines = {entry_id: cosine for entry_id, cosine, _ in nearest}
            missing = sorted(set(keyword) - set(cosines))
            if missing:  # found by words only: how close are they by meaning?
                params = {"ids": missing, "vector": vector_literal(vector)}
                cosines.update(
                    (int(r[0]), float(r[1])) for r in await conn.execute(_COSINES, params)
                )
            for entry_id, cosine in cosines.items():
                if entry_id != note.id:
                    similarity[entry_id] = (cosine - baseline.mean) / baseline.spread
    ids = set(keyword) | set(similarity)
    if not ids:
        return []
    categories: dict[int, str] = {}
    for r in await conn.execute(_TITLES, {"vault": vault_id, "ids": sorted(ids)}):
        titles[int(r.id)] = (r.path, r.title)
        categories[int(r.id)] = r.category
    # Notes already tied to this one are no news: those it links to (by the rule
    # backlinks follow) and those linking to it.
    links = [Link(key, where, alt, "") for key, where, alt in note.linked or ()]
    tied = {hit.path for hit in await backlinks(conn, vault_id, path, note.title)}
    tied |= {p for p, title in titles.values() if any(reaches(li, p, title) for li in links)}
    found = [
        Neighbour(
            titles[i][0], titles[i][1], keyword.get(i, 0.0), similarity.get(i), shared.get(i, 0)
        )
        for i in ids
        if i in titles and titles[i][0] not in tied and categories.get(i) not in NOT_THOUGHTS
    ]
    found.sort(key=lambda x: (-x.keyword, -(x.similarity or 0.0), x.path))
    return found
