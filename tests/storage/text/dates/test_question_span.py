"""The days a question about the past names (storage.text.dates.question_span), in English,
German and French, at a fixed now: Wednesday 25 November 2026, 20:00 UTC, which in
Auckland is already Thursday 26 November, 09:00. Every span is read on the local
day, so "yesterday" is the 25th and "today" the 26th."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from storage.text.dates import Span, question_span

ZONE = ZoneInfo("Pacific/Auckland")
NOW = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)  # Thu 26 Nov, 09:00 in Auckland


def _span(text: str) -> tuple[str | None, str | None] | None:
    found = question_span(text, ZONE, NOW)
    if found is None:
        return None
    return (
        found.after.isoformat() if found.after else None,
        found.before.isoformat() if found.before else None,
    )


DAYS = [
    # English
    ("what did I capture yesterday?", "2026-11-25", "2026-11-25"),
    ("what did I note today?", "2026-11-26", "2026-11-26"),
    ("anything from the day before yesterday?", "2026-11-24", "2026-11-24"),
    ("what did Sarah say about the budget last week?", "2026-11-16", "2026-11-22"),
    ("what did I save this week?", "2026-11-23", "2026-11-26"),
    ("ideas this month", "2026-11-01", "2026-11-26"),
    ("what did I file last month?", "2026-10-01", "2026-10-31"),
    ("what did I write in March?", "2026-03-01", "2026-03-31"),
    ("what did I write in December?", "2025-12-01", "2025-12-31"),  # the latest past one
    ("notes from March 2025", "2025-03-01", "2025-03-31"),
    ("what did I decide last year?", "2025-01-01", "2025-12-31"),
    ("what changed since Monday?", "2026-11-23", "2026-11-26"),
    ("what did I note 3 days ago?", "2026-11-23", "2026-11-23"),
    ("what did I write a week ago?", "2026-11-16", "2026-11-22"),
    ("what did I write two months ago?", "2026-09-01", "2026-09-30"),
    ("what did I do in 2025?", "2025-01-01", "2025-12-31"),
    ("notes of 2026-11", "2026-11-01", "2026-11-26"),
    ("what happened on 2026-11-03?", "2026-11-03", "2026-11-03"),
    ("what did Tom say on Tuesday?", "2026-11-24", "2026-11-24"),
    ("what did Tom say on Thursday?", "2026-11-19", "2026-11-19"),  # today is Thursday
    ("what did Tom say Tuesday?", "2026-11-24", "2026-11-24"),
    ("what did I note last Friday?", "2026-11-20", "2026-11-20"),
    ("what did I note on 3 November?", "2026-11-03", "2026-11-03"),
    ("what did I note on Nov 3rd?", "2026-11-03", "2026-11-03"),
    ("what did I capture in the last 7 days?", "2026-11-20", "2026-11-26"),
    ("what did I capture since last week?", "2026-11-16", "2026-11-26"),
    ("what did I note last night?", "2026-11-25", "2026-11-25"),
    ("what came in this morning?", "2026-11-26", "2026-11-26"),
    ("notes before March", None, "2026-02-28"),
    ("notes after 2026-11-03", "2026-11-04", None),
    ("notes until March", None, "2026-03-31"),
    # German
    ("was habe ich gestern notiert?", "2026-11-25", "2026-11-25"),
    ("was habe ich heute gespeichert?", "2026-11-26", "2026-11-26"),
    ("was habe ich vorgestern notiert?", "2026-11-24", "2026-11-24"),
    ("was hat Sarah letzte Woche zum Budget gesagt?", "2026-11-16", "2026-11-22"),
    ("was war vorige Woche?", "2026-11-16", "2026-11-22"),
    ("was habe ich in der vergangenen Woche notiert?", "2026-11-16", "2026-11-22"),
    ("was habe ich diese Woche notiert?", "2026-11-23", "2026-11-26"),
    ("Notizen diesen Monat", "2026-11-01", "2026-11-26"),
    ("was war letzten Monat?", "2026-10-01", "2026-10-31"),
    ("was habe ich im März notiert?", "2026-03-01", "2026-03-31"),
    ("was war letztes Jahr?", "2025-01-01", "2025-12-31"),
    ("was ist seit Montag passiert?", "2026-11-23", "2026-11-26"),
    ("was habe ich vor 3 Tagen notiert?", "2026-11-23", "2026-11-23"),
    ("was habe ich vor einer Woche notiert?", "2026-11-16", "2026-11-22"),
    ("was habe ich im Jahr 2025 notiert?", "2025-01-01", "2025-12-31"),
    ("was hat Tom am Dienstag gesagt?", "2026-11-24", "2026-11-24"),
    ("was habe ich am 3. November notiert?", "2026-11-03", "2026-11-03"),
    ("was habe ich in den letzten 7 Tagen notiert?", "2026-11-20", "2026-11-26"),
    # French
    ("qu'ai-je noté hier ?", "2026-11-25", "2026-11-25"),
    ("qu\u2019ai-je noté hier ?", "2026-11-25", "2026-11-25"),  # a phone's apostrophe
    ("qu'ai-je noté aujourd'hui ?", "2026-11-26", "2026-11-26"),
    ("qu'ai-je noté avant-hier ?", "2026-11-24", "2026-11-24"),
    ("qu'a dit Sarah sur le budget la semaine dernière ?", "2026-11-16", "2026-11-22"),
    ("qu'ai-je écrit la semaine passée ?", "2026-11-16", "2026-11-22"),
    ("qu'ai-je noté cette semaine ?", "2026-11-23", "2026-11-26"),
    ("qu'ai-je noté ce mois-ci ?", "2026-11-01", "2026-11-26"),
    ("qu'ai-je noté le mois dernier ?", "2026-10-01", "2026-10-31"),
    ("qu'ai-je noté en mars ?", "2026-03-01", "2026-03-31"),
    ("qu'ai-je noté en mars 2025 ?", "2025-03-01", "2025-03-31"),
    ("qu'ai-je décidé l'année dernière ?", "2025-01-01", "2025-12-31"),
    ("qu'ai-je décidé l'an dernier ?", "2025-01-01", "2025-12-31"),
    ("qu'est-ce qui a changé depuis lundi ?", "2026-11-23", "2026-11-26"),
    ("qu'ai-je noté il y a 3 jours ?", "2026-11-23", "2026-11-23"),
    ("qu'ai-je noté il y a une semaine ?", "2026-11-16", "2026-11-22"),
    ("qu'ai-je noté en 2025 ?", "2025-01-01", "2025-12-31"),
    ("qu'a dit Tom mardi ?", "2026-11-24", "2026-11-24"),
    ("qu'a dit Tom mardi dernier ?", "2026-11-24", "2026-11-24"),
    ("qu'ai-je noté le 3 novembre ?", "2026-11-03", "2026-11-03"),
    ("qu'ai-je noté ces 7 derniers jours ?", "2026-11-20", "2026-11-26"),
    ("qu'ai-je noté hier soir ?", "2026-11-25", "2026-11-25"),
]


@pytest.mark.parametrize(("text", "after", "before"), DAYS)
def test_time_words_become_days_in_the_persons_zone(
    text: str, after: str | None, before: str | None
) -> None:
    assert _span(text) == (after, before)


NOT_DATES = [
    "what happened before the offsite?",
    "what did we agree after the retro?",
    "what did we say before the kickoff meeting?",
    "vor dem Offsite, was war geplant?",
    "qu'avons-nous dit avant la réunion ?",
    "I may try oolong",
    "notes on March of the penguins",
    "a film in March of the penguins style",
    "what is new in version 2025?",
    "the 2026 budget",
    "what's due today?",  # a deadline, not when a note was filed
    "what reminders do I have this week?",
    "was ist heute fällig?",
    "was habe ich hier notiert?",  # German "hier" is "here"
    "Black Friday deals",
    "what did we decide at the Monday standup?",  # a weekday naming a thing
    "notes from the Saturday market",
    "what did I write about tomatoes?",
    "search after:2026-11-01 budget",  # search syntax is the search's own
    "what about 10:30?",
    "what's on 2026-02-30?",  # no such day
    "",
]


@pytest.mark.parametrize("text", NOT_DATES)
def test_words_that_are_no_dates_are_left_alone(text: str) -> None:
    assert question_span(text, ZONE, NOW) is None


@pytest.mark.parametrize(
    ("text", "matched", "rest"),
    [
        ("what did I capture yesterday?", "yesterday", "what did I capture?"),
        (
            "what did Sarah say about the budget last week?",
            "last week",
            "what did Sarah say about the budget?",
        ),
        ("was habe ich gestern notiert?", "gestern", "was habe ich notiert?"),
        ("qu'ai-je noté hier ?", "hier", "qu'ai-je noté?"),
        (
            "what did I write in March about the garden",
            "in March",
            "what did I write about the garden",
        ),
        ("seit Montag: Budget", "seit Montag", ": Budget"),
    ],
)
def test_the_rest_is_the_question_without_its_time_words(
    text: str, matched: str, rest: str
) -> None:
    found = question_span(text, ZONE, NOW)
    assert found is not None
    assert (found.matched, found.rest) == (matched, rest)


def test_the_local_day_counts_not_the_utc_one() -> None:
    utc = question_span("what did I capture yesterday?", ZoneInfo("UTC"), NOW)
    local = question_span("what did I capture yesterday?", ZONE, NOW)
    assert utc == Span(date(2026, 11, 24), date(2026, 11, 24), "yesterday", "what did I capture?")
    assert local is not None and local.after == date(2026, 11, 25)


def test_a_month_not_yet_come_this_year_is_last_years_and_this_month_is_this_years() -> None:
    assert _span("in November") == ("2026-11-01", "2026-11-26")
    assert _span("last November") == ("2025-11-01", "2025-11-30")
    assert _span("in 2027") == ("2027-01-01", "2027-12-31")  # all ahead: kept, finds nothing
