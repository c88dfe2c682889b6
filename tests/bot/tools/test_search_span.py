"""Whose date a search uses (bot.tools.search_span): the person's words first, then
the query's own time words, then the model's `modified_after`/`modified_before`; and
when a question asks for a listing of what was filed rather than for words."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from bot.tools.search_span import asks_only, plan_search

ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)  # Thursday


def test_the_persons_date_wins_over_the_models_and_is_reported() -> None:
    plan = plan_search(
        "what did Sarah say about the budget last week?",
        "Sarah budget",
        ZONE,
        NOW,
        date(2026, 1, 1),
        None,
    )
    assert plan.query == "Sarah budget" and not plan.listing
    assert (plan.modified_after, plan.modified_before) == (None, None)
    assert plan.filed is not None and plan.filed.or_changed
    assert (plan.filed.created_after, plan.filed.created_before) == (
        date(2026, 11, 16),
        date(2026, 11, 22),
    )
    assert plan.used == {
        "after": "2026-11-16",
        "before": "2026-11-22",
        "notes": "filed or changed 2026-11-16 to 2026-11-22",
        "read_from": "the user's words",
        "words": "last week",
        "listing": False,
        "ignored_model_dates": ["2026-01-01"],
    }


def test_the_querys_time_words_are_read_when_the_person_named_none() -> None:
    plan = plan_search("", "budget last week", ZONE, NOW)
    assert plan.query == "budget"
    assert plan.used is not None and plan.used["read_from"] == "the query"


def test_without_any_time_words_the_models_dates_stand() -> None:
    plan = plan_search("what about the budget?", "budget", ZONE, NOW, date(2026, 11, 1), None)
    assert (plan.query, plan.filed, plan.used) == ("budget", None, None)
    assert plan.modified_after == date(2026, 11, 1)


def test_a_question_of_only_asking_and_capture_words_lists_what_was_filed() -> None:
    for said, query in [
        ("what did I capture yesterday?", "capture"),
        ("was habe ich gestern notiert?", "was habe ich notiert"),
        ("qu'ai-je noté hier ?", "qu'ai-je noté"),
        ("what did I save yesterday?", ""),
    ]:
        plan = plan_search(said, query, ZONE, NOW)
        assert plan.listing and plan.query == "", said
        assert plan.filed is not None and not plan.filed.or_changed
        assert plan.used is not None and plan.used["notes"] == "filed on 2026-11-25"
    assert not asks_only("budget")
    assert asks_only("what did I write")
