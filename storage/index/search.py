"""Ranking in SQL, within one vault: BM25 over the postings tables, cosine over chunk
vectors, and reciprocal-rank fusion of the two lists.

BM25 rather than `ts_rank`: `ts_rank` has no inverse document frequency, so a
common word weighs as much as a rare one, and `websearch_to_tsquery` ANDs every
word, so a question in plain language matches almost nothing. The `simple`
tsvector still serves explicit syntax ("a quoted phrase", -excluded) as a filter
(see storage.index.filters), on both sides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.index.filters import Filters
from storage.index.query import SearchQuery
from storage.index.tokens import like_prefix

K1 = 1.2
B = 0.75
PREFIX_MIN_CHARS = 3
PREFIX_EXPANSIONS = 8  # a prefix stands for at most this many terms (the most common ones)
PREFIX_WEIGHT = 0.5  # weight of expansions of a word that also matches exactly
# Fusion: reciprocal rank, k=5, keyword weight 0.5, vector weight 1 scaled by agreement
# (0.75 when no note of the keyword side's top 10 is in the vector side's, up to 1 when
# all are), behind a gate: when the keyword side is sure of the query (its first note
# holds at least 3/4 of the query's words, words in most notes left out) and the
# vector side is not (its first cosine leads the second by less than 0.005), the
# keyword weight is 2, so the keywords' first notes stay first and the vectors reorder
# below them and fill in. Chosen by bench/fusion.py, leave-one-set-out over the
# third-party sets of bench/sets (hand-written questions on docs, a wiki, notes; and
# questions made from command references, where each question is an example's own
# description: the kind where the plain rule fell 5.6 points below keyword-only at
# recall@5), against rank fusion alone, relative-score and distribution-based score
# fusion and the gate on the BM25 head's shape (the 5th score below half the first):
# chosen without a set, a gate on the words matched holds on each of the nine sets
# (recall@5 within 0.01 of both sides, recall@1 within one question of the rule
# before), where without that signal one set (tldr-linux) lost two first hits. A
# BM25 head that stands out often stood out for one rare word of the question: the
# head's shape is not looked at (FLAT_HEAD 2: always "standing out"), the matched words
# are. The command sets were cut to 800, 600 and 279 pages to be indexed in time.
RRF_K = 5
KEYWORD_WEIGHT = 0.5
AGREEMENT_FLOOR = 0.75
AGREEMENT_DEPTH = 10
SURE_KEYWORD_WEIGHT = 2.0  # the keyword weight when the keywords are sure, the vectors not
FLAT_HEAD = 2.0  # the keywords' head stands out when its HEAD-th BM25 is below this x the first
VECTOR_MARGIN = 0.005  # the vectors are sure when their first cosine leads the second by this
HEAD = 5
FEW_MATCHED = 0.75  # the keywords are weak when their first note holds less of the query
# A word in more than this share of the notes ("the", "and") says next to nothing
# (BM25 gives it almost no weight) but costs a posting per note: it is left out
# of the ranking, unless the query has nothing rarer.
COMMON_SHARE = 0.5
HNSW_EF_MAX = 1000  # pgvector's limit for hnsw.ef_search
HNSW_EF_MIN = 40  # pgvector's default
# A vault whose chunk vectors hold at most this many numbers (chunks x dimensions) is
# searched exactly, its chunks read through the `chunks_vault` index, however many
# other vaults share the table. Measured with random vectors (warm cache), an exact
# scan of one vault among 177,000 chunks of 384 dimensions took 1 ms for 100 chunks
# and 14 ms for 20,000, where the HNSW query took about 11 ms; among 95,000 chunks of
# 1,536 dimensions (stored out of line) 27 ms for 5,000 and 118 ms for 20,000. So the
# budget is 20,000 chunks of 384 dimensions, 5,000 of 1,536.
SMALL_VAULT_VALUES = 20_000 * 384


_BM25 = """
WITH words AS (
    SELECT w.word, w.low, w.high, w.pattern, w.is_last,
           CASE WHEN w.n <= 63 THEN 1::bigint << (w.n::int - 1) ELSE 0 END AS bit,
           coalesce((SELECT t.df FROM terms t
                     WHERE t.vault_id = :vault AND t.term = w.word), 0) AS df
    FROM unnest(CAST(:words AS text[]), CAST(:lows AS text[]), CAST(:highs AS text[]),
                CAST(:patterns AS text[]), CAST(:lasts AS boolean[]))
         WITH ORDINALITY AS w(word, low, high, pattern, is_last, n)
),
query_terms AS (
    SELECT t.term, t.df, 1.0::float8 AS weight, w.bit
    FROM words w JOIN terms t ON t.vault_id = :vault AND t.term = w.word WHERE t.df > 0
    UNION ALL
    SELECT x.term, x.df, CASE WHEN w.df > 0 THEN :prefix_weight ELSE 1.0 END, w.bit
    FROM words w CROSS JOIN LATERAL (
        SELECT t.term, t.df FROM terms t
        WHERE t.vault_id = :vault
          AND t.term ~>=~ w.low AND t.term ~<~ w.high AND t.term LIKE w.pattern
          AND t.term <> w.word AND t.df > 0
        ORDER BY t.df DESC LIMIT :expansions
    ) x
    WHERE char_length(w.word) >= :prefix_min AND (w.is_last OR w.df = 0)
),
stats AS (
    SELECT greatest(doc_count, 1)::float8 AS n,
           greatest(total_length::float8 / greatest(doc_count, 1), 1.0) AS avgdl
    FROM index_meta WHERE vault_id = :vault
),
grouped AS (
    SELECT term, max(df) AS df, max(weight) AS weight, bit_or(bit) AS bits
    FROM query_terms GROUP BY term
),
q AS (
    SELECT g.* FROM grouped g, stats s
    WHERE g.df <= s.n * :common
       OR NOT EXISTS (SELECT 1 FROM grouped r WHERE r.df <= s.n * :common)
),
asked AS (
    SELECT coalesce(bit_or(w.bit) FILTER (WHERE w.df <= s.n * :common), bit_or(w.bit), 0) AS bits
    FROM words w, stats s
)
SELECT p.entry_id,
       sum(q.weight * ln(1.0 + (s.n - q.df + 0.5) / (q.df + 0.5))
           * p.tf * (:k1 + 1) / (p.tf + :k1 * (1 - :b + :b * p.dl / s.avgdl))) AS score,
       bit_or(q.bits) & min(a.bits) AS matched, min(a.bits) AS asked
FROM q JOIN postings p ON p.vault_id = :vault AND p.term = q.term CROSS JOIN stats s
CROSS JOIN asked a
{join}
GROUP BY p.entry_id
ORDER BY score DESC, p.entry_id
LIMIT :limit
"""


def _upper_bound(word: str) -> str:
    # Byte order of UTF-8 is code point order, so this is above every `word...` term.
    last = ord(word[-1])
    return word[:-1] + chr(last + 1) if last < 0x10FFFF else word + "\U0010ffff"


@dataclass(frozen=True, slots=True)
class KeywordRanking:
    """The keyword side of a search: `hits`, (entry id, BM25 score) best first; and
    `matched`, the share of the query's words the first hit holds (words in most
    notes left out, as they are from the score), 0 without hits."""

    hits: list[tuple[int, float]] = field(default_factory=list)
    matched: float = 0.0


async def keyword_ranking(
    conn: AsyncConnection, vault_id: int, query: SearchQuery, filters: Filters, limit: int
) -> KeywordRanking:
    """The vault's notes by BM25, best first (see KeywordRanking); document frequencies
    and lengths are the vault's own. A word with no exact term, and the last word
    (the one still being typed), also match the terms they begin; words in most notes
    are skipped when rarer ones are there (see COMMON_SHARE). `filters` (the query's
    own and the caller's, merged) restrict which notes count."""
    if not query.words:
        return KeywordRanking()
    conditions, params = filters.sql()
    join = ""
    if conditions:
        join = "JOIN entries e ON e.id = p.entry_id WHERE " + " AND ".join(conditions)
    words = list(query.words)
    params.update(
        vault=vault_id,
        words=words,
        lows=words,
        highs=[_upper_bound(w) for w in words],
        patterns=[like_prefix(w) for w in words],
        lasts=[i == len(words) - 1 for i in range(len(words))],
        prefix_weight=PREFIX_WEIGHT,
        expansions=PREFIX_EXPANSIONS,
        prefix_min=PREFIX_MIN_CHARS,
        common=COMMON_SHARE,
        k1=K1,
        b=B,
        limit=limit,
    )
    rows = list(await conn.execute(text(_BM25.format(join=join)), params))
    if not rows:
        return KeywordRanking()
    # A bit per word (the first 63): the words the first hit holds, of those asked.
    matched = int(rows[0].matched).bit_count() / max(int(rows[0].asked).bit_count(), 1)
    return KeywordRanking([(int(r[0]), float(r[1])) for r in rows], matched)


_VECTOR = """
SELECT entry_id, 1 - distance AS similarity, start FROM (
    SELECT DISTINCT ON (entry_id) entry_id, distance, start FROM (
        SELECT c.entry_id, c.start, c.embedding <=> CAST(:vector AS vector) AS distance
        FROM chunks c {join}
        WHERE {where}
        ORDER BY {order} LIMIT :candidates
    ) nearest
    ORDER BY entry_id, distance
) best
ORDER BY distance, entry_id
LIMIT :limit
"""


# pgvector >= 0.8 (its extension's version in this database says the library is at
# least that new) scans the HNSW index iteratively: `relaxed_order` goes on past
# `ef_search` until the LIMIT is met by rows passing the WHERE (up to
# `hnsw.max_scan_tuples`), in nearly the right order (_VECTOR sorts again). With
# 20,000 vectors in 10 vaults (bench/embedded_pg.py, pgvector 0.8.2 and 0.8.5) the top
# 10 of one vault had a recall of 0.998 at ef_search 40 (median 0.6-1.4 ms), where the
# widening's ef_search 400 took 0.9-3.7 ms and plain ef_search 40 found 4 rows. Older
# pgvector knows no such setting (setting it would fail): the scan is widened instead.
_HNSW_SETTINGS = text(
    """
    WITH server AS (
        SELECT coalesce((SELECT string_to_array(extversion, '.')::int[] >= '{0,8}'
                         FROM pg_extension
                         WHERE extname = 'vector' AND extversion ~ '^[0-9]+(\\.[0-9]+)*$'),
                        false) AS iterative
    )
    SELECT set_config('hnsw.ef_search', CASE WHEN iterative THEN :narrow ELSE :wide END, true),
           CASE WHEN iterative THEN set_config('hnsw.iterative_scan', 'relaxed_order', true) END
    FROM server
    """
)


async def prefer_iterative_scan(
    conn: AsyncConnection, *, candidates: int, wide: int = HNSW_EF_MAX
) -> None:
    """For the rest of this transaction, an HNSW scan goes on until `candidates` rows
    pass its filter (pgvector >= 0.8), or reads `wide` candidates before filtering."""
    narrow = max(HNSW_EF_MIN, candidates)
    await conn.execute(_HNSW_SETTINGS, {"wide": str(max(wide, narrow)), "narrow": str(narrow)})


def vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


_VAULT_SIZE = text(
    """
    SELECT (SELECT count(*) FROM (SELECT 1 FROM chunks WHERE vault_id = :vault LIMIT :cap) c)
               AS chunks,
           (SELECT doc_count FROM index_meta WHERE vault_id = :vault) AS notes,
           (SELECT sum(doc_count) FROM index_meta) AS all_notes
    """
)


async def vector_ranking(
    conn: AsyncConnection,
    vault_id: int,
    vector: Sequence[float],
    filters: Filters,
    limit: int,
    *,
    exact_values: int | None = None,
) -> list[tuple[int, float, int]]:
    """(entry id, cosine similarity of its best chunk, that chunk's offset) of the vault's
    notes, best first; notes whose best chunk has no positive similarity are left out.

    A small vault's chunks are few (see SMALL_VAULT_VALUES; `exact_values` for a caller
    that trades exactness for time sooner): they are compared one by one (exact, and
    cheap).
    Otherwise the HNSW index over every vault's chunks serves. Before pgvector 0.8 an
    HNSW scan stops after `hnsw.ef_search` candidates and filters them afterwards (by
    vault, and by `filters`), so the search widens with the share of the chunks the
    other vaults hold and with a filter. From 0.8 on, an iterative scan goes on until
    enough rows pass the filter (see _HNSW_SETTINGS). When either still leaves too few
    rows, the same query runs as an exact scan, which a selective filter makes cheap.
    """
    conditions, params = filters.sql()
    join = "JOIN entries e ON e.id = c.entry_id" if conditions else ""
    where = " AND ".join(["c.vault_id = :vault", *conditions])
    candidates = limit * 4  # a note has several chunks; keep enough for `limit` notes
    params.update(vault=vault_id, vector=vector_literal(vector), candidates=candidates, limit=limit)
    indexed = "c.embedding <=> CAST(:vector AS vector)"
    # `+ 0` hides the expression from the index: an exact scan finds every match.
    exact = _VECTOR.format(join=join, where=where, order=f"({indexed}) + 0")
    budget = SMALL_VAULT_VALUES if exact_values is None else exact_values
    small = budget // max(len(vector), 1)
    size = (await conn.execute(_VAULT_SIZE, {"vault": vault_id, "cap": small + 1})).one()
    if size.chunks <= small:
        rows = list(await conn.execute(text(exact), params))
    else:
        share = (size.notes or 0) / max(size.all_notes or 0, 1)
        wanted = candidates * (5 if conditions else 1) / max(share, 1 / HNSW_EF_MAX)
        wide = min(HNSW_EF_MAX, max(HNSW_EF_MIN, math.ceil(wanted)))
        await prefer_iterative_scan(conn, candidates=candidates, wide=wide)
        hnsw = _VECTOR.format(join=join, where=where, order=indexed)
        rows = list(await conn.execute(text(hnsw), params))
        if len(rows) < limit:
            rows = list(await conn.execute(text(exact), params))
    # A chunk pointing away from the query (cosine <= 0) is no match, only a neighbour.
    return [(int(r[0]), float(r[1]), int(r[2])) for r in rows if float(r[1]) > 0]


def keyword_is_sure(keyword: Sequence[tuple[int, float]], flat_head: float) -> bool:
    """Whether the BM25 head stands out: the HEAD-th score is below `flat_head` times the
    first (fewer than HEAD notes matched counts as standing out; none, as not sure)."""
    if not keyword:
        return False
    if len(keyword) < HEAD:
        return True
    return keyword[HEAD - 1][1] < flat_head * keyword[0][1]


def vector_is_sure(vector: Sequence[tuple[int, float]], margin: float) -> bool:
    """Whether the first vector hit leads the second by at least `margin` (cosine)."""
    if not vector:
        return False
    second = vector[1][1] if len(vector) > 1 else 0.0
    return vector[0][1] - second >= margin


def fuse(
    keyword: Sequence[tuple[int, float]],
    vector: Sequence[tuple[int, float]],
    *,
    k: int = RRF_K,
    keyword_weight: float = KEYWORD_WEIGHT,
    vector_weight: float = 1.0,
    agreement_floor: float = AGREEMENT_FLOOR,
    sure_keyword_weight: float = SURE_KEYWORD_WEIGHT,
    flat_head: float = FLAT_HEAD,
    vector_margin: float = VECTOR_MARGIN,
    matched: float = 1.0,
    few_matched: float = FEW_MATCHED,
) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of two scored lists, best first (keyword: BM25, vector:
    cosine): sum of weight / (k + rank).

    When the keyword side is sure of itself (its first note holds at least
    `few_matched` of the query's words, `matched` being that share as
    KeywordRanking.matched counts it; and its head stands out, see keyword_is_sure)
    and the vector side is not (see vector_is_sure), the keyword weight is
    `sure_keyword_weight` (0: never): the vectors then reorder and fill in, without
    displacing the keywords' first notes. Otherwise the vector side's weight scales
    with how far the two sides agree: the share of the keyword side's top
    AGREEMENT_DEPTH that the vector side's top also holds, from `agreement_floor`
    (no overlap) to the full weight (the same notes)."""
    keyword_ids = [entry_id for entry_id, _ in keyword]
    vector_ids = [entry_id for entry_id, _ in vector]
    if (
        sure_keyword_weight
        and matched >= few_matched
        and keyword_is_sure(keyword, flat_head)
        and not vector_is_sure(vector, vector_margin)
    ):
        keyword_weight = sure_keyword_weight
    top = keyword_ids[:AGREEMENT_DEPTH]
    shared = len(set(top) & set(vector_ids[:AGREEMENT_DEPTH])) / len(top) if top and vector else 1.0
    vector_weight *= agreement_floor + (1.0 - agreement_floor) * shared
    scores: dict[int, float] = {}
    for weight, ranking in ((keyword_weight, keyword_ids), (vector_weight, vector_ids)):
        for rank, entry_id in enumerate(ranking, start=1):
            scores[entry_id] = scores.get(entry_id, 0.0) + weight / (k + rank)
    # Weights such as 1/2 and 3/4 make exact ties (0.5/6 == 0.75/9): they go to the
    # keyword side's order, then the vector side's, not to whichever note is older.
    unranked = len(keyword_ids) + len(vector_ids) + 1
    keyword_rank = {entry_id: rank for rank, entry_id in enumerate(keyword_ids)}
    vector_rank = {entry_id: rank for rank, entry_id in enumerate(vector_ids)}
    keys = {
        entry_id: (
            -round(score, 12),
            keyword_rank.get(entry_id, unranked),
            vector_rank.get(entry_id, unranked),
            entry_id,
        )
        for entry_id, score in scores.items()
    }
    return [(entry_id, scores[entry_id]) for entry_id in sorted(keys, key=keys.__getitem__)]
