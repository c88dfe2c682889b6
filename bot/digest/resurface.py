"""The past comes back: the daily digest's "From your notes" (one or two older notes
close to what was filed in the last days) and the weekly review's "On this day" (a
note filed this week a year ago). Each item has Open / Done / "Less like this"
buttons (bot.buttons.resurface).

Choices, so that an old note shows up because it matters now:
- "Related" is judged by the note vectors: without embeddings, or with nothing filed
  in the last SEED_DAYS, the section is left out (a random old note is not "related";
  asking for one is what a tool is for).
- A weak match is no match: the similarity (times the note's weight, which "Less like
  this" halves) must reach the embedder's MIN_SIMILARITY.
- Never a closed note (status done, archived...), nor one in the inbox or an archive
  folder, nor one the digest lists already, nor one shown on the REST_DAYS before
  (composed twice the same day, a digest shows the same notes).
- A failed query or a bad note leaves the section out and is logged: the digest goes
  out without it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from storage import Store
from storage.db import Records
from storage.index import PastNote, PastQuery, notes_filed_between, related_older_notes
from storage.vault import CLOSED_STATUSES, INBOX, NOT_THOUGHTS, PUT_AWAY

log = logging.getLogger(__name__)

RELATED_HEADING = "From your notes"
YEAR_AGO_HEADING = "On this day"
SEED_DAYS = 3  # what was filed in these days (and today) calls older notes back
OLDER_THAN = timedelta(days=30)  # only notes filed before this long ago come back
REST_DAYS = 14  # a note shown is not shown again for this many days
RELATED_NOTES = 2
NEVER_CATEGORIES = (INBOX, *PUT_AWAY, *NOT_THOUGHTS)
# The cosine similarity a note must reach, by embedder. Local E5 rates every pair of
# texts high: on ten hand-written pairs (a new capture, an older note on its topic)
# related pairs scored 0.847-0.90 (median 0.878), the 90 unrelated ones median 0.821,
# up to 0.88; at 0.86, 8 of 10 related pairs pass and 3 of 90 unrelated ones (and a
# note is shown only when nothing closer is there). OpenAI's 0.45 is a guess, not
# measured here (no network). Hashing vectors (tests, benches) count shared words.
MIN_SIMILARITY = {"local": 0.86, "openai": 0.45, "hashing": 0.4}
DEFAULT_MIN_SIMILARITY = 0.5


def min_similarity(embedder: str | None) -> float:
    """The threshold for vectors made by `embedder` (as the index names it:
    `openai:text-embedding-3-small`, `local:multilingual-e5-small`, `hashing:64`)."""
    kind = (embedder or "").split(":", 1)[0]
    return MIN_SIMILARITY.get(kind, DEFAULT_MIN_SIMILARITY)


def year_before(day: date) -> date:
    """The same date a year earlier (28 February for the 29th)."""
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


@dataclass(frozen=True, slots=True)
class PastSection:
    """A section of older notes: its heading, (line, path) per note, how many more."""

    heading: str
    lines: tuple[tuple[str, str], ...]
    more: int = 0

    @property
    def paths(self) -> list[str]:
        return [path for _, path in self.lines]


def _line(note: PastNote, zone: tzinfo, why: str) -> tuple[str, str]:
    filed = note.filed.astimezone(zone).date().isoformat()
    return f"{note.title} ({note.category}) — filed {filed}{why}", note.path


async def past_sections(
    store: Store,
    *,
    day: date,
    kind: str,
    zone: tzinfo,
    start_of_day: datetime,
    now: datetime,
    listed: tuple[str, ...],
) -> list[PastSection]:
    """The digest's sections of older notes (none when nothing fits); `record_shown`
    rests them once the digest is sent. `start_of_day` is the local midnight of `day`
    in `zone`, `listed` the paths the digest shows already."""
    query = PastQuery(
        day=day,
        rest_from=day - timedelta(days=REST_DAYS),
        closed=CLOSED_STATUSES,
        categories=[c for c in store.vault.categories if c not in NEVER_CATEGORIES],
        listed=listed,
    )
    try:
        section = await (
            _year_ago(store, query, zone, start_of_day)
            if kind == "weekly"
            else _related(store, query, zone, start_of_day, now)
        )
    except Exception:
        log.exception("the digest of %s goes out without its older notes", day)
        return []
    return [] if section is None else [section]


async def record_shown(records: Records, store: Store, paths: tuple[str, ...], day: date) -> None:
    """The older notes a sent digest of `day` brought back rest for a while: not on
    composing (a preview, the read-only digest tool), which shows nobody anything to
    rest from. A failure is logged; the digest has gone out."""
    try:
        await records.resurfaced.record_shown(store.vault_id, paths, day)
    except Exception:
        log.exception("the older notes of the digest of %s were not recorded as shown", day)


async def _related(
    store: Store, query: PastQuery, zone: tzinfo, start_of_day: datetime, now: datetime
) -> PastSection | None:
    if store.index.embedder is None:
        return None
    notes = await related_older_notes(
        store.database.engine,
        store.vault_id,
        query,
        since=start_of_day - timedelta(days=SEED_DAYS),
        until=now,
        older_than=start_of_day - OLDER_THAN,
        threshold=min_similarity(store.index.embedder.name),
        seed_categories=store.vault.categories,
        limit=RELATED_NOTES,
    )
    lines = tuple(_line(n, zone, f", close to “{n.seed}”") for n in notes)
    return PastSection(RELATED_HEADING, lines) if lines else None


async def _year_ago(
    store: Store, query: PastQuery, zone: tzinfo, start_of_day: datetime
) -> PastSection | None:
    """The note of this week (the review's seven days) a year ago, on one line."""
    day = query.day
    first = year_before(day) - timedelta(days=6)
    start = start_of_day - timedelta(days=(day - first).days)
    notes, total = await notes_filed_between(
        store.database.engine, store.vault_id, query, start=start, end=start + timedelta(days=7)
    )
    lines = tuple(_line(n, zone, ", a year ago") for n in notes)
    return PastSection(YEAR_AGO_HEADING, lines, total - len(lines)) if lines else None
