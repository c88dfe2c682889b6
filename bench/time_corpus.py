"""A personal vault over six months, generated with a fixed seed, and questions about
it, each with its one relevant note; half of them name a time.

The vault is what a person files in half a year (June to November 2026): recurring
meetings with the same people about the same subjects (a 1:1 with Sarah about the
budget most weeks, a monthly book club, a fortnightly offsite planning call...), each
with details of its own; and one-off notes (ideas, errands, people's facts, admin).
Some notes are changed again days after they were filed.

The time questions ask about one meeting of a series by when it was ("what did Sarah
say about the budget last week?", "was hat Lukas vor drei Wochen zum Offsite
gesagt?", "qu'ai-je noté hier ?"): every note of the series matches the words, only
the date tells them apart. The generator picks the note first and words the question
for the period that holds it, and checks that no other note of the series was filed
in that period: the truth is the generator's calendar, not storage.text.dates. The other
questions ask for a fact of one one-off note ("what is the reference of the car
insurance?") and name no time.

`python -m bench.time_corpus` writes the questions to bench/sets/personal-time.json
(the vault is generated again, identically, by bench.time_questions).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

SEED = 30
ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 26, 10, 0, tzinfo=ZONE)  # a Thursday
FIRST = date(2026, 6, 1)
SET = Path(__file__).parent / "sets" / "personal-time.json"


@dataclass(frozen=True, slots=True)
class Note:
    path: str
    title: str
    body: str
    created: datetime
    updated: datetime
    tags: tuple[str, ...] = ()

    def text(self) -> str:
        tags = "".join(f"\n  - {t}" for t in self.tags)
        return (
            f"---\ntitle: {self.title}\ncreated: {self.created:%Y-%m-%dT%H:%M:%S}\n"
            f"updated: {self.updated:%Y-%m-%dT%H:%M:%S}\ntimezone: {ZONE.key}\n"
            f"tags:{tags or ' []'}\n---\n{self.body}\n"
        )


@dataclass(frozen=True, slots=True)
class Series:
    person: str
    subject: str
    category: str
    every: int  # days between meetings, about
    title: str  # "{person}" and "{subject}" filled in
    details: tuple[str, ...]


SERIES = (
    Series(
        "Sarah",
        "budget",
        "projects",
        7,
        "1:1 with {person} on the {subject}",
        (
            "wants to cap travel at {n} euros",
            "asked for a second quote for the printers",
            "moved {n} euros from events to tooling",
            "agreed to freeze hiring costs until Q1",
            "wants the forecast in a spreadsheet by Friday",
            "said the cloud bill went up by {n} percent",
            "suggested we drop the boat trip",
            "approved {n} euros for the new laptops",
        ),
    ),
    Series(
        "Tom",
        "website",
        "projects",
        7,
        "{subject} review with {person}",
        (
            "wants a darker footer",
            "found {n} broken links on the pricing page",
            "proposed moving the blog to a subdomain",
            "asked for a cookie banner that is less annoying",
            "will rewrite the about page",
            "measured the homepage at {n} ms",
            "wants screenshots of the new dashboard",
        ),
    ),
    Series(
        "Lukas",
        "offsite",
        "projects",
        14,
        "{subject} planning call with {person}",
        (
            "found a hotel near Lisbon for {n} people",
            "prefers the mountains to the seaside",
            "booked the train for {n} people",
            "wants a half day of hiking",
            "asked everyone for dietary needs",
            "moved the dates by a week",
        ),
    ),
    Series(
        "Priya",
        "hiring",
        "people",
        10,
        "{subject} sync with {person}",
        (
            "shortlisted {n} candidates for the backend role",
            "wants a take-home exercise under two hours",
            "made an offer to the designer",
            "asked to add a pairing interview",
            "said the recruiter fee is {n} percent",
        ),
    ),
    Series(
        "Amélie",
        "book club",
        "ideas",
        30,
        "{subject} with {person}",
        (
            "picked a novel by Ursula K. Le Guin",
            "wants to read something about gardens",
            "chose a book of {n} pages",
            "suggested an essay collection",
            "proposed meeting at the library café",
            "picked a thriller set in Oslo",
        ),
    ),
    Series(
        "Jonas",
        "kitchen renovation",
        "projects",
        30,
        "{subject} with {person}",
        (
            "measured the wall at {n} cm",
            "wants oak worktops",
            "got a quote of {n} euros for the tiles",
            "found a plumber for the sink",
            "suggested moving the fridge",
            "ordered the cabinets",
        ),
    ),
)

# One-off notes: (category, title, body, question). Each question names words of its
# note only; `{n}` is a number drawn per note.
FACTS = (
    (
        "people",
        "Tom's daughter",
        "Tom's daughter is called Mila and turns {n} in spring.",
        "what is the name of Tom's daughter?",
    ),
    (
        "admin",
        "Car insurance",
        "Car insurance renews with Allianz, policy reference AZ-{n}.",
        "what is the reference of the car insurance?",
    ),
    (
        "admin",
        "Dentist",
        "Dentist Dr. Weber, practice on Lindenstraße {n}.",
        "where is the dentist's practice?",
    ),
    (
        "ideas",
        "Bird feeder camera",
        "A bird feeder with a small camera that posts to a feed.",
        "what was my idea with the bird feeder?",
    ),
    (
        "people",
        "Priya's favourite tea",
        "Priya likes jasmine tea, no sugar.",
        "which tea does Priya like?",
    ),
    (
        "admin",
        "Tax return",
        "Tax adviser Frau Kunz wants the receipts in a folder, fee {n} euros.",
        "what does the tax adviser want?",
    ),
    (
        "ideas",
        "Podcast about maps",
        "A podcast episode on old maps and how they lied.",
        "what was the podcast idea about maps?",
    ),
    (
        "people",
        "Lukas's bike",
        "Lukas sells his gravel bike for {n} euros.",
        "how much does Lukas want for his bike?",
    ),
    (
        "admin",
        "Passport",
        "Passport expires in March, appointment at the Bürgeramt booked.",
        "when does my passport expire?",
    ),
    (
        "ideas",
        "Sourdough schedule",
        "Feed the starter at 8, bake at {n} degrees.",
        "at what temperature do I bake the sourdough?",
    ),
    ("people", "Sarah's allergy", "Sarah is allergic to hazelnuts.", "what is Sarah allergic to?"),
    (
        "admin",
        "Wifi at the cabin",
        "Cabin wifi password is on the fridge; router model TP-{n}.",
        "which router is at the cabin?",
    ),
    (
        "ideas",
        "Standing desk",
        "Build a standing desk from an old door and trestles.",
        "how did I want to build the standing desk?",
    ),
    (
        "people",
        "Jonas's new job",
        "Jonas starts at a solar company in January.",
        "where does Jonas start his new job?",
    ),
    (
        "admin",
        "Gym membership",
        "Gym membership can be cancelled with {n} weeks notice.",
        "how much notice does the gym need?",
    ),
    (
        "ideas",
        "Rain barrel",
        "Connect a rain barrel to the garden gutter for the tomatoes.",
        "what was the rain barrel idea?",
    ),
    (
        "people",
        "Amélie's move",
        "Amélie moves to Lyon in the summer, new flat near the river.",
        "where is Amélie moving?",
    ),
    (
        "admin",
        "Electricity meter",
        "Electricity meter reading {n} kWh sent to the supplier.",
        "what was the electricity meter reading?",
    ),
    (
        "ideas",
        "Family recipe book",
        "Collect grandma's recipes into a printed book for Christmas.",
        "what was the recipe book idea?",
    ),
    (
        "people",
        "Tom's running club",
        "Tom runs with a club on Wednesday evenings at the park.",
        "when does Tom's running club meet?",
    ),
    (
        "admin",
        "Bike repair",
        "Bike shop quoted {n} euros for new brakes.",
        "how much are the new bike brakes?",
    ),
    (
        "ideas",
        "Board game night",
        "Monthly board game night, everyone brings one game.",
        "what was the board game night idea?",
    ),
)
FILLER = (
    ("ideas", "Note to self", "Look into {w} when there is time."),
    ("admin", "Errand", "Buy {w} on the way home."),
    ("ideas", "Thought", "Maybe {w} would help with focus."),
    ("people", "Call", "Called mum about {w}."),
)
FILLER_WORDS = (
    "light bulbs",
    "stamps",
    "a new kettle",
    "batteries",
    "coffee beans",
    "a doormat",
    "plant food",
    "a notebook",
    "a phone case",
    "walking shoes",
    "the library card",
    "a birthday card",
    "printer paper",
    "a bike lock",
    "candles",
)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("é", "e")).strip("-")


def _at(day: date, rng: random.Random) -> datetime:
    return datetime.combine(day, time(rng.randint(8, 21), rng.choice((0, 15, 30, 45))), ZONE)


def _changed(created: datetime, rng: random.Random) -> datetime:
    """Most notes stay as filed; one in ten is changed again a few days later."""
    if rng.random() < 0.1:
        later = created + timedelta(days=rng.randint(1, 12), hours=rng.randint(0, 5))
        return min(later, NOW - timedelta(hours=1))
    return created


def generate() -> tuple[list[Note], dict[str, list[Note]]]:
    """Every note, and each series' notes by series subject, oldest first."""
    rng = random.Random(SEED)
    today = NOW.date()
    notes: list[Note] = []
    series: dict[str, list[Note]] = {}
    for s in SERIES:
        day = FIRST + timedelta(days=rng.randint(0, s.every - 1))
        kept: list[Note] = []
        while day < today:
            detail = rng.choice(s.details).format(n=rng.randint(3, 900))
            title = s.title.format(person=s.person, subject=s.subject)
            body = f"{s.person} on the {s.subject}: {s.person} {detail}."
            created = _at(day, rng)
            path = f"{s.category}/{_slug(title)}-{day:%Y-%m-%d}.md"
            kept.append(
                Note(path, title, body, created, _changed(created, rng), (_slug(s.subject),))
            )
            # Weekly meetings keep their weekday; the others drift by a day or two.
            day += timedelta(days=s.every + (0 if s.every == 7 else rng.choice((-2, -1, 0, 1, 2))))
        series[s.subject] = kept
        notes += kept
    span = (today - FIRST).days
    for category, title, body, _ in FACTS:
        created = _at(FIRST + timedelta(days=rng.randint(0, span - 3)), rng)
        text = body.format(n=rng.randint(10, 9000))
        notes.append(
            Note(f"{category}/{_slug(title)}.md", title, text, created, _changed(created, rng))
        )
    for i in range(110):
        category, title, body = rng.choice(FILLER)
        created = _at(FIRST + timedelta(days=rng.randint(0, span - 3)), rng)
        text = body.format(w=rng.choice(FILLER_WORDS))
        notes.append(
            Note(f"{category}/{_slug(title)}-{i:03d}.md", f"{title} {i}", text, created, created)
        )
    # Yesterday's and Tuesday's captures, for "what did I capture yesterday?".
    for i, (days_back, title, body) in enumerate(
        (
            (1, "Ferry times", "The ferry leaves at 7:40 and 9:10 on weekdays."),
            (1, "Gift for Lea", "Lea would like a watercolour set."),
            (2, "Parking permit", "The parking permit form goes to the Ordnungsamt."),
        )
    ):
        created = _at(today - timedelta(days=days_back), rng)
        notes.append(Note(f"inbox/{_slug(title)}.md", title, body, created, created))
        del i
    return notes, series


def write_vault(notes: Sequence[Note], folder: Path) -> None:
    for note in notes:
        target = folder / note.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(note.text(), encoding="utf-8")


# How a question names a period; each returns (first day, last day) and the words.
def _week(day: date) -> date:
    return day - timedelta(days=day.weekday())


TIME_QUESTIONS = (
    # (series subject, question with {when}, how the period is chosen, words per language)
    ("budget", "what did Sarah say about the budget {when}?", "last week", "en"),
    ("budget", "what did Sarah decide on the budget {when}?", "2 weeks ago", "en"),
    ("budget", "what did Sarah say about the budget {when}?", "3 weeks ago", "en"),
    ("budget", "was hat Sarah {when} zum Budget gesagt?", "letzte Woche", "de"),
    ("budget", "qu'a dit Sarah sur le budget {when} ?", "la semaine dernière", "fr"),
    ("website", "what did Tom say about the website {when}?", "last week", "en"),
    ("website", "what did Tom want for the website {when}?", "4 weeks ago", "en"),
    ("website", "what did Tom find on the website {when}?", "this week", "en"),
    ("website", "was wollte Tom {when} für die Website?", "vor 2 Wochen", "de"),
    ("offsite", "what did Lukas say about the offsite {when}?", "in August", "en"),
    ("offsite", "what did Lukas say about the offsite {when}?", "last week", "en"),
    ("offsite", "what did Lukas say about the offsite {when}?", "2 weeks ago", "en"),
    ("offsite", "was hat Lukas {when} zum Offsite gesagt?", "vor 3 Wochen", "de"),
    ("hiring", "what did Priya say about hiring {when}?", "last week", "en"),
    ("hiring", "what did Priya say about hiring {when}?", "2 weeks ago", "en"),
    ("hiring", "was hat Priya {when} zum Hiring gesagt?", "vor 3 Wochen", "de"),
    ("budget", "what did Sarah say about the budget {when}?", "this week", "en"),
    ("offsite", "what did Lukas find for the offsite {when}?", "in September", "en"),
    ("offsite", "was hat Lukas {when} zum Offsite gesagt?", "im Oktober", "de"),
    ("hiring", "what did Priya say about hiring {when}?", "in July", "en"),
    ("hiring", "qu'a dit Priya sur le hiring {when} ?", "en juin", "fr"),
    ("book club", "which book did Amélie pick {when}?", "last month", "en"),
    ("book club", "which book did Amélie pick {when}?", "in September", "en"),
    ("book club", "quel livre Amélie a-t-elle choisi pour le book club {when} ?", "en août", "fr"),
    (
        "kitchen renovation",
        "what did Jonas say about the kitchen renovation {when}?",
        "this month",
        "en",
    ),
    (
        "kitchen renovation",
        "what did Jonas say about the kitchen renovation {when}?",
        "in 2026-09",
        "en",
    ),
    ("kitchen renovation", "was hat Jonas {when} zur kitchen renovation gesagt?", "im Juli", "de"),
    ("budget", "what did Sarah say about the budget {when}?", "on {date}", "en"),
    ("website", "what did Tom say about the website {when}?", "on {weekday}", "en"),
)
LISTINGS = (
    ("what did I capture yesterday?", 1),
    ("was habe ich gestern notiert?", 1),
    ("qu'ai-je noté avant-hier ?", 2),
)
_MONTHS = {
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "juni": 6,
    "juli": 7,
    "oktober": 10,
    "juin": 6,
    "août": 8,
}


def _period(when: str, today: date) -> tuple[date, date] | None:
    """The days a period word of TIME_QUESTIONS means (the generator's own calendar)."""
    this_week = _week(today)
    weeks_back = {"last week": 1, "letzte woche": 1, "la semaine dernière": 1, "this week": 0}
    if when.lower() in weeks_back:
        monday = this_week - timedelta(weeks=weeks_back[when.lower()])
        return monday, min(monday + timedelta(days=6), today)
    if match := re.fullmatch(r"(?:vor )?(\d) (?:weeks|wochen)(?: ago)?", when.lower()):
        monday = this_week - timedelta(weeks=int(match[1]))
        return monday, monday + timedelta(days=6)
    if match := re.fullmatch(r"(?:in|im|en) (\w+)", when.lower()):
        month = _MONTHS.get(match[1])
        if month is None:
            return None
        first = date(today.year, month, 1)
        return first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    if when == "in 2026-09":
        return date(2026, 9, 1), date(2026, 9, 30)
    if when == "this month":
        return today.replace(day=1), today
    if when == "last month":
        last = today.replace(day=1) - timedelta(days=1)
        return last.replace(day=1), last
    return None


def questions(notes: Sequence[Note], series: dict[str, list[Note]]) -> list[dict[str, str]]:
    """The labelled questions: (question, relevant path, kind, language)."""
    today = NOW.date()
    out: list[dict[str, str]] = []
    for subject, template, when, language in TIME_QUESTIONS:
        kept = series[subject]
        if when in ("on {date}", "on {weekday}"):
            # A day of the last two weeks with a meeting, before today.
            note = next(n for n in reversed(kept) if (today - n.created.date()).days >= 2)
            day = note.created.date()
            words = f"on {day:%B} {day.day}" if when == "on {date}" else f"on {day:%A}"
            if when == "on {weekday}" and (today - day).days > 7:
                continue
            period = (day, day)
        else:
            found = _period(when, today)
            assert found is not None, when
            period, words = found, when
        inside = [n for n in kept if period[0] <= n.created.date() <= period[1]]
        if len(inside) != 1:  # none, or several: the date would not tell one apart
            print(f"(left out {template.format(when=words)!r}: {len(inside)} notes then)")
            continue
        question = template.format(when=words)
        out.append(
            {"question": question, "relevant": inside[0].path, "time": "yes", "language": language}
        )
    for question, days_back in LISTINGS:
        day = today - timedelta(days=days_back)
        filed = [n for n in notes if n.created.date() == day]
        assert 1 <= len(filed) <= 5, (question, len(filed))
        language = "de" if "gestern" in question else "fr" if "qu'" in question else "en"
        out.append(
            {"question": question, "relevant": filed[0].path, "time": "yes", "language": language}
        )
    for category, title, _, question in FACTS:
        out.append(
            {
                "question": question,
                "relevant": f"{category}/{_slug(title)}.md",
                "time": "no",
                "language": "en",
            }
        )
    return out


def write_set(argv: Sequence[str] = ()) -> int:
    """Write the questions of the generated vault to bench/sets/personal-time.json."""
    notes, series = generate()
    labelled = questions(notes, series)
    SET.write_text(
        json.dumps(
            {
                "now": NOW.isoformat(),
                "zone": ZONE.key,
                "seed": SEED,
                "notes": len(notes),
                "questions": labelled,
            },
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    timed = sum(q["time"] == "yes" for q in labelled)
    print(f"{len(notes)} notes; {len(labelled)} questions, {timed} with time words -> {SET}")
    return 0


if __name__ == "__main__":
    sys.exit(write_set(sys.argv[1:]))
