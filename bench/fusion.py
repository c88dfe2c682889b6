"""Which hybrid fusion ships, and whether it holds on a set it was not chosen on:
leave-one-set-out over every third-party set of bench/sets.

A fusion tuned on the sets at hand did not carry over to pages nobody tuned it on
(hybrid below keyword-only on a held-out set of command-reference pages). So each
set is scored here with the fusion that wins on the *other* sets only, next to
keyword-only, vector-only, the rule shipped before and the one shipped now. The
fusions weighed are rank fusion, relative-score and distribution-based score fusion,
and a gate that lets the vectors displace keyword hits only when the keyword side is
weak for the query or the vector side is sure (bench/fusion_rules.py).
What "wins" means is fixed in advance (`choose`): on every training set, recall@5 at
most one question per hundred below keyword-only and below vector-only, and recall@1
at most one question below the rule shipped before; then the best mean of
(recall@5 + MRR) / 2.

The pages are not in this repository: see bench/thirdparty_ranking.py for
BRAINBOT_BENCH_CORPORA, bench/sets/*.tsv for where each corpus comes from, and
bench/example_sets.py for the sets it makes. Indexing them with local vectors takes
minutes per set, so each set's candidates (the top 30 of each side per question,
with their scores, and the share of its words the first keyword page holds: the very
lists a search fuses, from storage.index.Index.sides) are kept in
BRAINBOT_BENCH_CACHE (default: a `.candidates` folder beside the corpora) and reused
while the set's questions are unchanged; the sweep itself takes a few minutes.

Run: `python -m bench.fusion [--cached]` (exit 1 when the shipped fusion, or the one
chosen without a set, ranks more than one question per hundred below keyword-only or
vector-only on that set, recall@5).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.fusion_rules import (
    Ranker,
    Rule,
    keyword_only,
    rules,
    shipped,
    vector_only,
)
from bench.thirdparty_ranking import DEPTH, LabelledSet, load_sets, measure
from storage.index import search

TOLERANCE = 0.01  # one question per hundred, recall@5
METRICS = ("R@1", "R@5", "R@10", "MRR")

# query, relevant, keyword [(path, score)], vector [(path, score)], and matched, the
# share of the query's words the first keyword page holds: all as the search fuses them
# (bench.thirdparty_ranking.Candidates)
Row = dict[str, object]
Scores = dict[str, float]

# The rank fusion shipped before this bench's last choice (k=5, keyword weight 0.5,
# vector weight 0.75-1 by agreement), and the one before it (plain, 0.75 : 1).
BEFORE = Rule(
    "rrf",
    (("k", 5), ("keyword_weight", 0.5), ("agreement_floor", 0.75)),
    shipped(k=5, keyword_weight=0.5, agreement_floor=0.75, sure_keyword_weight=0.0),
)
EARLIER = Rule(
    "rrf",
    (("k", 5), ("keyword_weight", 0.75), ("agreement_floor", 1.0)),
    shipped(k=5, keyword_weight=0.75, agreement_floor=1.0, sure_keyword_weight=0.0),
)
SHIPPED = Rule("shipped", (), shipped())
SHIPPED_CONSTANTS = (
    f"k={search.RRF_K} keyword_weight={search.KEYWORD_WEIGHT} "
    f"agreement_floor={search.AGREEMENT_FLOOR} sure_keyword_weight={search.SURE_KEYWORD_WEIGHT} "
    f"flat_head={search.FLAT_HEAD} vector_margin={search.VECTOR_MARGIN} "
    f"few_matched={search.FEW_MATCHED}"
)


def scores(rows: Sequence[Row], ranker: Ranker) -> Scores:
    """Recall@1, @5 and @10, and MRR over the top 10 (as bench.thirdparty_ranking counts)."""
    found = dict.fromkeys(METRICS, 0.0)
    for row in rows:
        keyword = [(str(p), float(s)) for p, s in row["keyword"]]  # type: ignore[attr-defined]
        vector = [(str(p), float(s)) for p, s in row["vector"]]  # type: ignore[attr-defined]
        top = ranker(keyword, vector, float(row["matched"]))[:DEPTH]  # type: ignore[arg-type]
        if row["relevant"] in top:
            rank = top.index(str(row["relevant"])) + 1
            found["R@1"] += rank == 1
            found["R@5"] += rank <= 5
            found["R@10"] += 1
            found["MRR"] += 1 / rank
    n = max(len(rows), 1)
    return {k: v / n for k, v in found.items()}


Table = dict[str, dict[str, Scores]]  # rule -> set -> scores


def table(rows: dict[str, list[Row]], weighed: Sequence[Rule]) -> Table:
    return {str(rule): {n: scores(r, rule.rank) for n, r in rows.items()} for rule in weighed}


def noise(rows: Sequence[Row]) -> float:
    """One question of the set, or one per hundred when the set is larger."""
    return max(TOLERANCE, 1 / max(len(rows), 1))


def holds(values: Scores, base: dict[str, Scores], rows: Sequence[Row]) -> bool:
    """Recall@5 within one question per hundred of either side, recall@1 within one
    question of the rule shipped before."""
    return (
        values["R@5"] >= base["keyword"]["R@5"] - TOLERANCE - 1e-9
        and values["R@5"] >= base["vector"]["R@5"] - TOLERANCE - 1e-9
        and values["R@1"] >= base["before"]["R@1"] - noise(rows) - 1e-9
    )


def choose(
    training: Sequence[str], rows: dict[str, list[Row]], weighed: Sequence[Rule], done: Table
) -> Rule:
    """The rule that holds on every training set (see `holds`), or fails on fewest, then
    has the best mean of (recall@5 + MRR) / 2; ties go to the first in `rules()`."""

    def merit(rule: Rule) -> tuple[int, float]:
        per_set = done[str(rule)]
        failing = sum(not holds(per_set[n], baselines(done, n), rows[n]) for n in training)
        mean = statistics.mean((per_set[n]["R@5"] + per_set[n]["MRR"]) / 2 for n in training)
        return (-failing, round(mean, 6))

    return max(weighed, key=merit)  # max keeps the first of equals


def baselines(done: Table, name: str) -> dict[str, Scores]:
    return {label: done[label][name] for label in ("keyword", "vector", "before")}


def cache_folder(corpora: Path) -> Path:
    return Path(os.environ.get("BRAINBOT_BENCH_CACHE") or corpora / ".candidates")


def cached(labelled: LabelledSet, cache: Path) -> list[Row] | None:
    """The set's scored candidates kept from an earlier run, if its questions match (and
    the run kept what the gate reads: a cache from before is made again)."""
    path = cache / f"{labelled.name}.json"
    if path.is_file():
        rows: list[Row] = json.loads(path.read_text(encoding="utf-8"))
        asked = [[r["query"], r["relevant"]] for r in rows]
        if asked == [list(q) for q in labelled.questions] and all("matched" in r for r in rows):
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


def cells(values: Scores) -> str:
    return " | ".join(f"{values[k]:.3f}" for k in METRICS)


def print_sets(rows: dict[str, list[Row]], done: Table) -> None:
    """Each set: keyword-only, vector-only, the rule shipped before, the one shipped now."""
    print("| set | questions | mode | R@1 | R@5 | R@10 | MRR |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    modes = {"keyword": "keyword", "vector": "vector", "before": f"hybrid before ({BEFORE})"}
    modes["shipped"] = "hybrid (shipped)"
    for name, set_rows in rows.items():
        for label, shown in modes.items():
            print(f"| {name} | {len(set_rows)} | {shown} | {cells(done[label][name])} |")


def folds(rows: dict[str, list[Row]], weighed: Sequence[Rule], done: Table) -> dict[str, Rule]:
    """For each set, the rule chosen on the others."""
    return {name: choose([n for n in rows if n != name], rows, weighed, done) for name in rows}


def print_folds(rows: dict[str, list[Row]], chosen: dict[str, Rule], done: Table) -> bool:
    """Each held-out set scored with the rule chosen without it; whether all hold."""
    print("| held out | chosen on the others | R@1 | R@5 | R@10 | MRR | holds |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    ok = True
    for name, rule in chosen.items():
        values = done[str(rule)][name]
        held = holds(values, baselines(done, name), rows[name])
        ok = ok and held
        print(f"| {name} | {rule} | {cells(values)} | {'yes' if held else 'NO'} |")
    return ok


def print_families(rows: dict[str, list[Row]], weighed: Sequence[Rule], done: Table) -> None:
    """Leave-one-set-out within each family: how many held-out sets hold, and the means."""
    print("| family | held-out sets that hold | mean R@1 | mean R@5 | mean MRR |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for family in dict.fromkeys(rule.family for rule in weighed):
        members = [rule for rule in weighed if rule.family == family]
        picked = folds(rows, members, done)
        held = [done[str(rule)][name] for name, rule in picked.items()]
        count = sum(
            holds(done[str(rule)][name], baselines(done, name), rows[name])
            for name, rule in picked.items()
        )
        means = " | ".join(
            f"{statistics.mean(v[k] for v in held):.3f}" for k in ("R@1", "R@5", "MRR")
        )
        print(f"| {family} | {count} of {len(picked)} | {means} |")


async def load(root: Path, cached_only: bool) -> dict[str, list[Row]]:
    sets, missing = load_sets(root)
    for line in missing:
        print(f"(skipped {line})")
    cache = cache_folder(root)
    rows: dict[str, list[Row]] = {}
    for labelled in sets:
        kept = cached(labelled, cache)
        if kept is None and cached_only:
            print(f"(skipped {labelled.name}: nothing cached, and --cached)")
            continue
        rows[labelled.name] = kept if kept is not None else await candidates(labelled, cache)
    return rows


async def run(cached_only: bool) -> int:
    root = os.environ.get("BRAINBOT_BENCH_CORPORA")
    if not root:
        print(
            "BRAINBOT_BENCH_CORPORA is not set: no third-party corpus (skipped). Each "
            "bench/sets/<corpus>-<folder>.tsv names the public repository, commit and "
            "folder its pages come from; put that folder at <corpora>/<corpus>/<folder>."
        )
        return 0
    rows = await load(Path(root), cached_only)
    if len(rows) < 2:
        print("leave-one-set-out needs at least two sets (skipped)")
        return 0
    weighed = rules()
    fixed = [
        Rule("keyword", (), keyword_only),
        Rule("vector", (), vector_only),
        Rule("before", (), BEFORE.rank),
        SHIPPED,
    ]
    done = table(rows, [*fixed, *weighed])
    for rule in fixed:  # under their short names
        done[rule.family] = done.pop(str(rule))
    print(f"shipped: {SHIPPED_CONSTANTS}\n")
    print_sets(rows, done)
    print("\nLeave-one-set-out, every fusion weighed:\n")
    ok = print_folds(rows, folds(rows, weighed, done), done)
    print("\nLeave-one-set-out within each family:\n")
    print_families(rows, weighed, done)
    print(f"\nChosen on every set: {choose(list(rows), rows, weighed, done)}")
    shipped_ok = all(holds(done["shipped"][n], baselines(done, n), rows[n]) for n in rows)
    print(f"shipped holds on every set: {'yes' if shipped_ok else 'NO'}")
    print(f"chosen without the set holds on every set: {'yes' if ok else 'NO'}")
    return 0 if ok and shipped_ok else 1


def main(argv: Sequence[str] = ()) -> int:
    """`[--cached]` (only the sets already cached: no indexing); exit 1 when a fusion
    ranks below keyword-only or vector-only on a set."""
    return asyncio.run(run(cached_only="--cached" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
