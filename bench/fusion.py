"""How the hybrid fusion's constants were chosen, and whether they hold on a set they
were not chosen on: leave-one-set-out over every third-party set of bench/sets/.

A fusion tuned on the sets at hand did not carry over to pages nobody tuned it on
(hybrid below keyword-only on a held-out set of reference pages). So each set is
scored here with the constants that win on the *other* sets only, next to
keyword-only, vector-only and the fusion shipped before (k=5, keyword weight 0.75;
scored here with today's tie rule, keyword order first, where it broke ties by
note id).
What "wins" means is fixed in advance (`choose`): first no training set may lose
recall@5 against the better of keyword-only and vector-only, then the best mean of
recall@5 and MRR.

The pages are not in this repository: see bench/thirdparty_ranking.py for
BRAINBOT_BENCH_CORPORA and bench/sets/*.tsv for where each corpus comes from.
Indexing them with local vectors takes minutes per set, so each set's candidates
(the top 30 of each side per question, with their scores) are kept in
BRAINBOT_BENCH_CACHE (default: a `.candidates` folder beside the corpora) and
reused while the set's questions are unchanged; the sweep itself takes seconds.

Run: `python -m bench.fusion` (exit 1 when the shipped fusion, or the one chosen
without a set, ranks below keyword-only on that set by more than one question per
hundred, recall@5).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.thirdparty_ranking import DEPTH, LabelledSet, load_sets, measure
from storage.index.search import (
    AGREEMENT_FLOOR,
    KEYWORD_WEIGHT,
    RRF_K,
    fuse,
)

TOLERANCE = 0.01  # one question per hundred, recall@5
GRID_K = (1, 2, 5, 10, 20, 40, 60)
GRID_KEYWORD_WEIGHT = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
GRID_FLOOR = (0.0, 0.25, 0.5, 0.75, 1.0)  # 1.0: plain RRF, no say for agreement

Row = dict[str, object]  # query, relevant, keyword [(path, score)], vector [(path, score)]


@dataclass(frozen=True, order=True)
class Fusion:
    k: int
    keyword_weight: float
    agreement_floor: float

    def __str__(self) -> str:
        return f"k={self.k} kw={self.keyword_weight} floor={self.agreement_floor}"


SHIPPED = Fusion(RRF_K, KEYWORD_WEIGHT, AGREEMENT_FLOOR)
BEFORE = Fusion(5, 0.75, 1.0)  # the constants this bench replaced

Ranker = Callable[[list[str], list[str]], list[str]]


def by_fusion(fusion: Fusion) -> Ranker:
    def ranked(keyword: list[str], vector: list[str]) -> list[str]:
        # Ids in path order, as an import assigns them: fuse breaks ties by id.
        paths = sorted({*keyword, *vector})
        ids = {p: n for n, p in enumerate(paths)}
        fused = fuse(
            [ids[p] for p in keyword],
            [ids[p] for p in vector],
            k=fusion.k,
            keyword_weight=fusion.keyword_weight,
            agreement_floor=fusion.agreement_floor,
        )
        return [paths[i] for i, _ in fused]

    return ranked


def scores(rows: Sequence[Row], ranker: Ranker) -> dict[str, float]:
    """Recall@1 and @5, and MRR over the top 10 (as bench.thirdparty_ranking counts)."""
    r1 = r5 = mrr = 0.0
    for row in rows:
        keyword = [str(p) for p, _ in row["keyword"]]  # type: ignore[attr-defined]
        vector = [str(p) for p, _ in row["vector"]]  # type: ignore[attr-defined]
        ranked = ranker(keyword, vector)
        top = ranked[:DEPTH]
        if row["relevant"] in top:
            rank = top.index(str(row["relevant"])) + 1
            r1 += rank == 1
            r5 += rank <= 5
            mrr += 1 / rank
    n = max(len(rows), 1)
    return {"R@1": r1 / n, "R@5": r5 / n, "MRR": mrr / n}


KEYWORD: Ranker = lambda keyword, vector: keyword  # noqa: E731
VECTOR: Ranker = lambda keyword, vector: vector  # noqa: E731


def grid() -> list[Fusion]:
    return [Fusion(*p) for p in itertools.product(GRID_K, GRID_KEYWORD_WEIGHT, GRID_FLOOR)]


def choose(training: dict[str, Sequence[Row]]) -> Fusion:
    """The fusion that loses no recall@5 on any training set to the better of its two
    sides alone (or loses least on the worst set), then has the best mean of
    (recall@5 + MRR) / 2; ties go to the first in `grid()` order (smaller k, weight,
    floor). The better side, not keyword-only: on a set nobody has seen, which side
    is stronger is not known, so the fusion has to hold against either."""
    better = {
        name: max(scores(rows, KEYWORD)["R@5"], scores(rows, VECTOR)["R@5"])
        for name, rows in training.items()
    }

    def merit(fusion: Fusion) -> tuple[float, float]:
        ranker = by_fusion(fusion)
        per_set = {name: scores(rows, ranker) for name, rows in training.items()}
        worst = min(per_set[n]["R@5"] - better[n] for n in training)
        mean = statistics.mean((s["R@5"] + s["MRR"]) / 2 for s in per_set.values())
        return (min(0.0, round(worst, 6)), round(mean, 6))

    return max(sorted(grid()), key=merit)  # max keeps the first of equals


def cache_folder(corpora: Path) -> Path:
    return Path(os.environ.get("BRAINBOT_BENCH_CACHE") or corpora / ".candidates")


def cached(labelled: LabelledSet, cache: Path) -> list[Row] | None:
    """The set's scored candidates kept from an earlier run, if its questions match."""
    path = cache / f"{labelled.name}.json"
    if path.is_file():
        rows: list[Row] = json.loads(path.read_text(encoding="utf-8"))
        if [[r["query"], r["relevant"]] for r in rows] == [list(q) for q in labelled.questions]:
            return rows
    return None


async def candidates(labelled: LabelledSet, cache: Path) -> list[Row]:
    """The set's scored candidates: from the cache, else by importing the corpus
    (minutes) and keeping what was ranked."""
    kept = cached(labelled, cache)
    if kept is not None:
        return kept
    path = cache / f"{labelled.name}.json"
    print(f"(indexing {labelled.name}: {labelled.corpus})", flush=True)
    await measure(labelled, embedder(), dump_to=cache)
    loaded: list[Row] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def embedder():  # type: ignore[no-untyped-def]
    from bench.storage_ranking import pick_embedder

    chosen, name = pick_embedder(hashing=False)
    print(f"(vector side: {name})", flush=True)
    return chosen


def cells(values: dict[str, float]) -> str:
    return " | ".join(f"{values[k]:.3f}" for k in ("R@1", "R@5", "MRR"))


async def run(cached_only: bool) -> int:
    root = os.environ.get("BRAINBOT_BENCH_CORPORA")
    if not root:
        print(
            "BRAINBOT_BENCH_CORPORA is not set: no third-party corpus (skipped). Each "
            "bench/sets/<corpus>-<folder>.tsv names the public repository, commit and "
            "folder its pages come from; put that folder at <corpora>/<corpus>/<folder>."
        )
        return 0
    sets, missing = load_sets(Path(root))
    for line in missing:
        print(f"(skipped {line})")
    cache = cache_folder(Path(root))
    rows: dict[str, list[Row]] = {}
    for labelled in sets:
        kept = cached(labelled, cache)
        if kept is None and cached_only:
            print(f"(skipped {labelled.name}: nothing cached, and --cached)")
            continue
        rows[labelled.name] = kept if kept is not None else await candidates(labelled, cache)
    if len(rows) < 2:
        print("leave-one-set-out needs at least two sets")
        return 0
    print(f"shipped fusion: {SHIPPED}; before: {BEFORE}\n")
    print("| set | questions | fusion | R@1 | R@5 | MRR |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    ok = True
    for name, held_out in rows.items():
        chosen = choose({n: r for n, r in rows.items() if n != name})
        keyword = scores(held_out, KEYWORD)
        table = {
            "keyword": keyword,
            "vector": scores(held_out, VECTOR),
            f"hybrid before ({BEFORE})": scores(held_out, by_fusion(BEFORE)),
            f"hybrid shipped ({SHIPPED})": scores(held_out, by_fusion(SHIPPED)),
            f"hybrid chosen without it ({chosen})": scores(held_out, by_fusion(chosen)),
        }
        for label, values in table.items():
            print(f"| {name} | {len(held_out)} | {label} | {cells(values)} |")
        for label in list(table)[3:]:
            if table[label]["R@5"] < keyword["R@5"] - TOLERANCE - 1e-9:
                ok = False
    print(f"\nhybrid >= keyword - {TOLERANCE} on every set (recall@5): {'yes' if ok else 'NO'}")
    return 0 if ok else 1


def main(argv: Sequence[str] = ()) -> int:
    """`[--cached]` (only the sets already cached: no indexing); exit 1 when a fusion
    ranks below keyword-only on a set."""
    return asyncio.run(run(cached_only="--cached" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
