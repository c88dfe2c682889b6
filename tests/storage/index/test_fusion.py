"""The hybrid fusion's rule, as a searcher sees it: notes both sides found come first,
the vector side has less say when it disagrees with the keywords, and when the
keywords are sure of a query (their first note holds most of its words) and the
vectors are not (no cosine margin), the keywords' first notes stay first: the failure
seen on held-out sets of command references (bench/fusion.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.index import search


def ids(fused: list[tuple[int, float]]) -> list[int]:
    return [entry_id for entry_id, _ in fused]


def ranked(entry_ids: Sequence[int], top: float = 1.0) -> list[tuple[int, float]]:
    """Ids with falling scores of one flat head: the gate neither side's business."""
    return [(entry_id, top - 0.0001 * n) for n, entry_id in enumerate(entry_ids)]


def fuse(
    keyword: Sequence[int], vector: Sequence[int], **constants: Any
) -> list[tuple[int, float]]:
    """Rank fusion alone (no gate), over ranks with scores that sway no gate."""
    constants.setdefault("sure_keyword_weight", 0.0)
    return search.fuse(ranked(keyword), ranked(vector), **constants)


def test_a_note_both_sides_found_comes_first() -> None:
    fused = ids(fuse([1, 2, 3], [3, 4, 1]))
    assert set(fused[:2]) == {1, 3}
    assert set(fused) == {1, 2, 3, 4}


def test_when_the_sides_disagree_the_keywords_lead_as_far_as_the_floor_says() -> None:
    keyword, vector = [1, 2, 3, 4, 5], [11, 12, 13, 14, 15]
    # No say for vectors that share nothing with the keywords' top: keyword order.
    assert ids(fuse(keyword, vector, k=5, keyword_weight=1.0, agreement_floor=0.0))[:5] == keyword
    # Full say (plain reciprocal-rank fusion): the two lists interleave.
    plain = ids(fuse(keyword, vector, k=5, keyword_weight=1.0, agreement_floor=1.0))
    assert plain[:4] == [1, 11, 2, 12]


def test_when_the_sides_agree_the_vectors_keep_their_full_weight() -> None:
    keyword, vector = [1, 2, 3, 4], [4, 3, 2, 1]
    scaled = fuse(keyword, vector, k=5, keyword_weight=1.0, agreement_floor=0.0)
    plain = fuse(keyword, vector, k=5, keyword_weight=1.0, agreement_floor=1.0)
    assert scaled == plain


def test_half_agreement_gives_the_vectors_a_weight_between_floor_and_full() -> None:
    keyword = [1, 2, 3, 4]
    vector = [1, 2, 11, 12]  # half of the keywords' top is in the vectors' top
    fused = dict(fuse(keyword, vector, k=5, keyword_weight=1.0, agreement_floor=0.0))
    assert abs(fused[11] - 0.5 / (5 + 3)) < 1e-12
    assert abs(fused[1] - (1.0 / 6 + 0.5 / 6)) < 1e-12


def test_one_side_with_nothing_leaves_the_other_in_its_order() -> None:
    assert ids(fuse([], [7, 8, 9])) == [7, 8, 9]
    assert ids(fuse([7, 8, 9], [])) == [7, 8, 9]
    assert fuse([], []) == []


def test_the_shipped_fusion_keeps_the_keywords_first_note_in_the_first_four() -> None:
    """The held-out failure: good keyword hits pushed out of the top 5 by vector-only
    notes. With the shipped constants, a note the keywords rank first and the vectors
    do not find at all stays within the first four, however many notes the vectors
    find that the keywords do not (on a tie, the keyword side's order wins)."""
    fused = ids(fuse([1, 2, 3], list(range(11, 41))))
    assert fused.index(1) <= 3
    assert fused.index(1) < fused.index(14)


def test_the_order_does_not_hang_on_ids_where_the_scores_differ() -> None:
    # The same two lists under other ids give the same order of notes.
    first = ids(fuse([1, 2, 3], [3, 4, 5]))
    renamed = {1: 50, 2: 40, 3: 30, 4: 20, 5: 10}
    second = ids(fuse([50, 40, 30], [30, 20, 10]))
    assert [renamed[i] for i in first] == second


# The gate: the vectors displace keyword hits only when the keyword side is weak for
# the query (its first note holds few of the query's words, or, when asked, a flat
# BM25 head) or the vector side is sure (a cosine margin).
SHARP = [(1, 10.0), (2, 6.0), (3, 5.5), (4, 5.0), (5, 4.0)]  # 5th score 0.4 of the first
FLAT = [(1, 5.0), (2, 4.9), (3, 4.9), (4, 4.8), (5, 4.8)]  # 5th score 0.96 of the first
UNSURE = [(11, 0.860), (12, 0.857), (13, 0.852), (14, 0.850), (15, 0.849)]  # margin 0.003
SURE = [(11, 0.900), (12, 0.850), (13, 0.849), (14, 0.848), (15, 0.847)]  # margin 0.05


def test_constructed_cases_sit_on_the_sides_of_the_shipped_thresholds() -> None:
    assert search.keyword_is_sure(SHARP, search.FLAT_HEAD)
    assert not search.keyword_is_sure(FLAT, 0.5)
    assert not search.vector_is_sure(UNSURE, search.VECTOR_MARGIN)
    assert search.vector_is_sure(SURE, search.VECTOR_MARGIN)


def test_a_query_whose_keyword_side_is_sure_keeps_the_keyword_top_hits() -> None:
    """The held-out failure (command references: "Create a new branch"): the keywords
    found the page, the vectors found five near-equal others and pushed it down."""
    fused = ids(search.fuse(SHARP, UNSURE))
    assert fused[:3] == [1, 2, 3]
    assert set(fused[:5]) <= {1, 2, 3, 4, 5, 11, 12}


def test_a_first_keyword_note_holding_few_of_the_query_words_lets_the_vectors_in() -> None:
    """A BM25 head can stand out for one rare word of a long question: the first note
    holding half the question's words is no sure answer (bench/fusion.py, tldr-linux)."""
    assert ids(search.fuse(SHARP, UNSURE, matched=1.0))[0] == 1
    fused = ids(search.fuse(SHARP, UNSURE, matched=0.5))
    assert 11 in fused[:2]


def test_a_flat_keyword_head_lets_the_vectors_in_when_the_head_is_looked_at() -> None:
    fused = ids(search.fuse(FLAT, UNSURE, flat_head=0.5))
    assert 11 in fused[:2]


def test_a_sure_vector_side_displaces_a_sure_keyword_side() -> None:
    fused = ids(search.fuse(SHARP, SURE))
    assert 11 in fused[:2]


def test_a_query_with_no_keyword_match_gets_the_vector_hits_in_their_order() -> None:
    assert ids(search.fuse([], UNSURE)) == [11, 12, 13, 14, 15]
    assert ids(search.fuse([], SURE)) == [11, 12, 13, 14, 15]


def test_fewer_keyword_hits_than_the_head_count_as_sure() -> None:
    """One or two notes holding the query's words are a sharp answer, not a flat one."""
    fused = ids(search.fuse([(1, 3.0), (2, 2.9)], UNSURE))
    assert fused[:2] == [1, 2]


def test_notes_both_sides_found_still_come_first_when_the_keywords_are_sure() -> None:
    vector = [(3, 0.860), (12, 0.858), (13, 0.855), (14, 0.852), (15, 0.850)]
    fused = ids(search.fuse(SHARP, vector))
    assert fused.index(3) < fused.index(2)  # found by both: ahead of a keyword-only note
