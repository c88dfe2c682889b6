"""The fusions bench/fusion.py weighs against each other, each a function from a
question's scored candidates (keyword: BM25, vector: cosine; best first) to one
ranking of pages:

- rank fusion (RRF): the shipped `storage.index.search.fuse`, over a grid of its
  constants, the old rules among them;
- relative-score fusion (Weaviate's `relativeScoreFusion`): each side's scores
  scaled to 0-1 by its own minimum and maximum, summed with weights, a note one side
  did not find counting 0 there;
- distribution-based score fusion (Qdrant's and Weaviate's DBSF): each side scaled by
  its mean +- 3 standard deviations (clipped to 0-1), summed with weights;
- the gate (`fuse` with `sure_keyword_weight`): keyword order unless the keyword side
  is weak for the query (its head is flat, or its first note holds few of the query's
  words: `few_matched`) or the vector side is sure (a cosine margin), rank fusion then.

Each ranks a question's two candidate lists given the share of the query's words its
first keyword note holds (storage.index.search.KeywordRanking.matched, kept with the
candidates), which only the gate reads.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from storage.index.search import fuse

Scored = Sequence[tuple[str, float]]
Ranker = Callable[[Scored, Scored, float], list[str]]


@dataclass(frozen=True)
class Rule:
    """A named fusion with its constants, and how it ranks."""

    family: str
    constants: tuple[tuple[str, float], ...]
    rank: Ranker

    def __str__(self) -> str:
        return f"{self.family}(" + ", ".join(f"{k}={v:g}" for k, v in self.constants) + ")"


def keyword_only(keyword: Scored, vector: Scored, matched: float) -> list[str]:
    return [p for p, _ in keyword]


def vector_only(keyword: Scored, vector: Scored, matched: float) -> list[str]:
    return [p for p, _ in vector]


def by_ids(keyword: Scored, vector: Scored) -> tuple[list[str], dict[str, int]]:
    """Ids in path order, as an import assigns them: `fuse` breaks its last ties by id."""
    paths = sorted({p for p, _ in keyword} | {p for p, _ in vector})
    return paths, {p: n for n, p in enumerate(paths)}


def shipped(**constants: float) -> Ranker:
    """storage.index.search.fuse with these constants (its defaults for the rest)."""

    def ranked(keyword: Scored, vector: Scored, matched: float) -> list[str]:
        paths, ids = by_ids(keyword, vector)
        fused = fuse(
            [(ids[p], s) for p, s in keyword],
            [(ids[p], s) for p, s in vector],
            matched=matched,
            **constants,
        )
        return [paths[i] for i, _ in fused]

    return ranked


def _summed(sides: Sequence[tuple[float, dict[str, float]]], keyword: Scored) -> list[str]:
    total: dict[str, float] = {}
    for weight, normalised in sides:
        for path, value in normalised.items():
            total[path] = total.get(path, 0.0) + weight * value
    order = {p: n for n, (p, _) in enumerate(keyword)}
    return sorted(total, key=lambda p: (-round(total[p], 12), order.get(p, len(order)), p))


def min_max(scored: Scored) -> dict[str, float]:
    if not scored:
        return {}
    values = [s for _, s in scored]
    low, high = min(values), max(values)
    return {p: (s - low) / (high - low) if high > low else 1.0 for p, s in scored}


def distribution(scored: Scored) -> dict[str, float]:
    if not scored:
        return {}
    values = [s for _, s in scored]
    mean = statistics.fmean(values)
    spread = statistics.pstdev(values)
    if spread == 0:
        return {p: 1.0 for p, _ in scored}
    low = mean - 3 * spread
    return {p: min(1.0, max(0.0, (s - low) / (6 * spread))) for p, s in scored}


def relative_score(vector_weight: float) -> Ranker:
    def ranked(keyword: Scored, vector: Scored, matched: float) -> list[str]:
        sides = ((1 - vector_weight, min_max(keyword)), (vector_weight, min_max(vector)))
        return _summed(sides, keyword)

    return ranked


def distribution_based(vector_weight: float) -> Ranker:
    def ranked(keyword: Scored, vector: Scored, matched: float) -> list[str]:
        sides = ((1 - vector_weight, distribution(keyword)), (vector_weight, distribution(vector)))
        return _summed(sides, keyword)

    return ranked


RRF_K = (2, 5, 10, 20, 60)
RRF_KEYWORD_WEIGHT = (0.5, 0.75, 1.0, 1.5, 2.0)
RRF_FLOOR = (0.5, 0.75, 1.0)
SCORE_VECTOR_WEIGHT = tuple(round(0.1 * n, 1) for n in range(11))
GATE_FLAT = (
    0.0,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    2.0,
)  # the keywords sure: 0.0 only below 5 hits, 2.0 always
GATE_MARGIN = (0.005, 0.01, 0.02, 0.03, 1.0)  # 1.0: never sure
GATE_SURE_WEIGHT = (2.0, 4.0, 1000.0)  # 1000: the vectors only fill in below
GATE_FEW_MATCHED = (0.0, 0.5, 0.6, 0.75, 1.0)  # 0.0: however few words the first holds


def rules() -> list[Rule]:
    """Every fusion weighed, in a fixed order (ties in `choose` go to the first)."""
    out: list[Rule] = []
    for k, weight, floor in itertools.product(RRF_K, RRF_KEYWORD_WEIGHT, RRF_FLOOR):
        constants = {"k": k, "keyword_weight": weight, "agreement_floor": floor}
        out.append(
            Rule("rrf", tuple(constants.items()), shipped(**constants, sure_keyword_weight=0.0))
        )
    for weight in SCORE_VECTOR_WEIGHT:
        out.append(Rule("relative-score", (("vector_weight", weight),), relative_score(weight)))
    for weight in SCORE_VECTOR_WEIGHT:
        out.append(
            Rule("distribution-based", (("vector_weight", weight),), distribution_based(weight))
        )
    for k, weight, floor in ((5, 0.5, 0.75), (5, 1.0, 1.0), (10, 1.0, 1.0), (5, 0.75, 1.0)):
        for flat, margin, sure, few in itertools.product(
            GATE_FLAT, GATE_MARGIN, GATE_SURE_WEIGHT, GATE_FEW_MATCHED
        ):
            constants = {
                "k": k,
                "keyword_weight": weight,
                "agreement_floor": floor,
                "flat_head": flat,
                "vector_margin": margin,
                "sure_keyword_weight": sure,
                "few_matched": few,
            }
            out.append(Rule("gate", tuple(constants.items()), shipped(**constants)))
    return out
