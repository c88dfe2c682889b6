"""The days a search is about, and whose word counts. A date the person wrote wins
over one a model guessed (as for reminders, bot.tools.dates): "what did Sarah say
about the budget last week?" searches last week whatever `modified_after` the model
passed, because the reader knows the person's zone and today's date and a small
model often does not. Without a date in the person's words, the query's own ("budget
last week" from a model, or an MCP client) is read; without either, the model's
`modified_after`/`modified_before` stand, as before.

What the span filters on:
- a question with nothing left to look for once the time words, the question words
  and the capture verbs are gone ("what did I capture yesterday?", "was habe ich
  gestern notiert?", "qu'ai-je noté hier ?") lists the notes *filed* in the span
  (their `created`), newest first: the person asks what came in then;
- a question with words left ("what did I decide about the budget last week?") finds
  notes *filed or changed* in the span: a decision may have been written into an
  older note that week, or into a new one.
The words are searched without the time words, so "last" and "week" rank nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from storage.index import Filters
from storage.text.dates import Span, question_span

# Asking and capturing, in English, German and French: a question made only of these
# (once its time words are out) asks for a listing, not a search.
ASKING_WORDS = frozenset(
    re.findall(
        r"\S+",
        """what which did do does i i've me my we our you have has all any anything
        everything something notes note noted capture captured save saved saving write
        wrote written file filed add added jot jotted jotted down record recorded keep
        kept log logged put store stored new list show tell were was is are the a an
        in on from of about that there everything
        was habe hab ich wir hast du alles etwas notiert notieren notizen notiz
        gespeichert aufgeschrieben geschrieben festgehalten abgelegt erfasst gemerkt
        zeig zeige mir welche welcher neu neues hinzugefügt gesichert
        qu'ai-je qu'est-ce que qu' j'ai ai je tu as quoi noté notée notés notées noter
        écrit écrits enregistré enregistrés sauvegardé gardé ajouté ajoutés capturé
        mis pris note notes les des mes montre-moi montre moi quelles quels quelle""",
    )
)
_WORD = re.compile(r"[\w'\u2019-]+")


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """What a search runs with: the query without time words, the span as a filter
    (None: no span), the model's own date bounds when no span was read, and what the
    result tells the model about the range it used."""

    query: str
    filed: Filters | None
    modified_after: date | None
    modified_before: date | None
    listing: bool = False
    used: dict[str, Any] | None = None


def asks_only(query: str) -> bool:
    """Nothing to look for: every word asks or names capturing ("what did I note")."""
    return all(w.lower().replace("\u2019", "'") in ASKING_WORDS for w in _WORD.findall(query))


def plan_search(
    said: str,
    query: str,
    zone: ZoneInfo,
    now: datetime,
    modified_after: date | None = None,
    modified_before: date | None = None,
    *,
    syntax_only: bool = False,
) -> SearchPlan:
    """The search for `query` (a model's, or the router's words) asked in the message
    `said`, read in `zone` at `now` (see the module docstring). With `syntax_only`
    (`/search`) no time word is read: only the syntax's `after:`/`before:` filter."""
    if syntax_only:
        return SearchPlan(query, None, modified_after, modified_before)
    person = question_span(said, zone, now) if said else None
    in_query = question_span(query, zone, now)
    if in_query is not None:
        query = in_query.rest
    span: Span | None = person or in_query
    if span is None:
        return SearchPlan(query, None, modified_after, modified_before)
    listing = asks_only(query)
    words = "" if listing else query
    filed = Filters(
        created_after=span.after,
        created_before=span.before,
        or_changed=not listing,
        filed_zone=zone,
    )
    used: dict[str, Any] = {
        "after": span.after.isoformat() if span.after else None,
        "before": span.before.isoformat() if span.before else None,
        "notes": filed.filed_words(),
        "read_from": "the user's words" if person else "the query",
        "words": span.matched,
        "listing": listing,
    }
    guessed = [str(d) for d in (modified_after, modified_before) if d is not None]
    if guessed:
        used["ignored_model_dates"] = guessed
    return SearchPlan(words, filed, None, None, listing, used)
