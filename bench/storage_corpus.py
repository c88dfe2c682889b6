"""Deterministic, generated notes for the storage benchmarks (nothing is downloaded).

Each note is one event of a personal knowledge base: a topic (a car repair, a
budget review...) with a person, at a place, told in the topic's own words plus
everyday filler. Each topic also has words a person would use when asking about it
later ("vehicle" for a car, "expenses" for a budget): queries are built from those,
so they share a name or a place with their note but rarely its exact topic words,
the way a question asked weeks later reads.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

# topic: (category, words the note uses, words a later question uses)
TOPICS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "car repair": (
        "admin",
        ("car", "mechanic", "brakes", "garage", "tyres"),
        ("vehicle", "auto shop", "fixing the automobile"),
    ),
    "budget review": (
        "projects",
        ("budget", "spending", "invoice", "forecast"),
        ("expenses", "finances", "money plan"),
    ),
    "dentist": (
        "admin",
        ("dentist", "tooth", "filling", "cleaning"),
        ("dental appointment", "teeth", "orthodontist"),
    ),
    "website relaunch": (
        "projects",
        ("website", "homepage", "redesign", "launch"),
        ("site", "web pages", "new landing page"),
    ),
    "job interview": (
        "people",
        ("interview", "candidate", "hiring", "role"),
        ("recruiting", "applicant", "open position"),
    ),
    "birthday party": (
        "people",
        ("birthday", "party", "cake", "gifts"),
        ("celebration", "presents", "turning another year"),
    ),
    "marathon training": (
        "projects",
        ("marathon", "running", "miles", "pace"),
        ("race preparation", "jogging", "long runs"),
    ),
    "tax return": (
        "admin",
        ("tax", "return", "deductions", "accountant"),
        ("IRS paperwork", "filing", "refund"),
    ),
    "garden": (
        "ideas",
        ("garden", "tomatoes", "seeds", "compost"),
        ("vegetable patch", "plants", "growing food"),
    ),
    "podcast": (
        "ideas",
        ("podcast", "episode", "microphone", "guests"),
        ("audio show", "recording", "listeners"),
    ),
    "kitchen renovation": (
        "projects",
        ("kitchen", "cabinets", "contractor", "countertop"),
        ("remodel", "cooking area", "builder"),
    ),
    "vacation": (
        "ideas",
        ("vacation", "flights", "hotel", "beach"),
        ("holiday trip", "travel", "getaway"),
    ),
    "doctor visit": (
        "admin",
        ("doctor", "checkup", "blood", "prescription"),
        ("physician", "medical appointment", "health exam"),
    ),
    "book club": (
        "people",
        ("book", "novel", "chapter", "author"),
        ("reading group", "literature", "story we read"),
    ),
    "insurance claim": (
        "admin",
        ("insurance", "claim", "policy", "adjuster"),
        ("coverage", "damage payout", "insurer"),
    ),
    "product roadmap": (
        "projects",
        ("roadmap", "features", "quarter", "priorities"),
        ("product plan", "what ships next", "milestones"),
    ),
    "wedding": (
        "people",
        ("wedding", "ceremony", "bride", "venue"),
        ("marriage", "getting married", "reception"),
    ),
    "moving house": (
        "projects",
        ("moving", "boxes", "apartment", "lease"),
        ("relocation", "new flat", "packing"),
    ),
    "photography": (
        "ideas",
        ("camera", "lens", "photos", "exposure"),
        ("pictures", "shooting images", "photographer"),
    ),
    "mortgage": (
        "admin",
        ("mortgage", "bank", "interest", "loan"),
        ("home financing", "lender", "house credit"),
    ),
    "conference talk": (
        "projects",
        ("conference", "talk", "slides", "keynote"),
        ("presentation", "speaking", "event on stage"),
    ),
    "dog training": (
        "ideas",
        ("dog", "puppy", "leash", "treats"),
        ("pet", "canine", "obedience class"),
    ),
    "guitar lessons": (
        "ideas",
        ("guitar", "chords", "strings", "lessons"),
        ("music practice", "instrument", "playing songs"),
    ),
    "performance review": (
        "people",
        ("review", "feedback", "goals", "promotion"),
        ("appraisal", "evaluation", "career talk"),
    ),
    "car purchase": (
        "projects",
        ("dealer", "sedan", "test drive", "financing"),
        ("buying a vehicle", "new automobile", "showroom"),
    ),
    "server outage": (
        "projects",
        ("server", "outage", "database", "incident"),
        ("downtime", "system failure", "crash"),
    ),
    "newsletter": (
        "ideas",
        ("newsletter", "subscribers", "issue", "email"),
        ("mailing list", "weekly letter", "readers"),
    ),
    "school meeting": (
        "people",
        ("school", "teacher", "grades", "parents"),
        ("classroom", "education", "kids' progress"),
    ),
    "yoga": (
        "ideas",
        ("yoga", "mat", "stretching", "breathing"),
        ("exercise class", "flexibility", "meditation"),
    ),
    "electric bill": (
        "admin",
        ("electricity", "bill", "meter", "utility"),
        ("power costs", "energy invoice", "kilowatt charges"),
    ),
    "hackathon": (
        "projects",
        ("hackathon", "prototype", "team", "demo"),
        ("coding event", "build weekend", "sprint"),
    ),
    "fundraiser": (
        "projects",
        ("fundraiser", "donations", "charity", "auction"),
        ("raising money", "nonprofit event", "donors"),
    ),
    "coffee roasting": (
        "ideas",
        ("coffee", "beans", "roast", "espresso"),
        ("caffeine", "brewing", "morning cup"),
    ),
    "lawyer": (
        "admin",
        ("lawyer", "contract", "clause", "signature"),
        ("attorney", "legal advice", "agreement"),
    ),
    "bike repair": (
        "admin",
        ("bicycle", "chain", "flat", "spokes"),
        ("bike shop", "cycling", "two wheels"),
    ),
    "investor pitch": (
        "projects",
        ("investor", "pitch", "valuation", "deck"),
        ("fundraising", "venture capital", "startup money"),
    ),
    "family dinner": (
        "people",
        ("dinner", "family", "recipe", "table"),
        ("meal", "relatives", "evening food"),
    ),
    "hiking trip": (
        "ideas",
        ("hiking", "trail", "backpack", "summit"),
        ("mountain walk", "trekking", "outdoors"),
    ),
    "visa application": (
        "admin",
        ("visa", "embassy", "passport", "application"),
        ("immigration", "travel permit", "consulate"),
    ),
    "team offsite": (
        "people",
        ("offsite", "team", "workshop", "agenda"),
        ("retreat", "colleagues", "company outing"),
    ),
}


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _words(
    "Sarah Tom Marta Ivan Priya Lukas Chen Amara Diego Freya Omar Hana Jonas Lena Rafael "
    "Yuki Noah Elif Mateo Ingrid Kofi Sofia Arjun Nora Pablo Greta Samir Ava Felix Mira"
)
LAST = _words(
    "Lindqvist Okafor Moreau Novak Haddad Tanaka Silva Kowalski Brennan Rossi Nakamura "
    "Fischer Duarte Petrov Larsen Mendes Quinn Varga Osei Keller"
)
PLACES = _words(
    "Lisbon Oslo Berlin Toronto Nairobi Kyoto Austin Lyon Krakow Dublin Porto Seoul "
    "Denver Madrid Vienna Helsinki Cairo Melbourne Zurich Bogota"
)
DAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
FILLER = (
    "Need to follow up next week.",
    "Remember to check the notes from last time.",
    "It went better than expected.",
    "Not sure about the next steps yet.",
    "Ask about this again later.",
    "We agreed to talk again soon.",
    "Keep this in mind for the future.",
    "Some open questions remain.",
    "Overall a good conversation.",
    "Write down the details before I forget.",
)
OPENERS = (
    "Met {who} in {place} on {day} about the {topic}.",
    "{day}: {topic} with {who} in {place}.",
    "Talked to {who} about the {topic} while in {place} on {day}.",
)
QUESTIONS = (
    "what did {first} say about the {ask} in {place}?",
    "notes about the {ask} with {first} in {place}",
    "{first} {ask} {place}",
    "anything on {ask} from {first}?",
    "what was agreed with {first} on the {ask}",
    "when did I talk to {first} about the {ask}",
    "the {ask} in {place}",
    "what do I know about the {ask} in {place}?",
    "{ask} {place}",
)
LOOKUPS = (
    "where did we land on {code}?",
    "{code} {ask}",
    "what happened with the {code} thing",
    "remind me about {code} and the {ask}",
)
_SYLLABLES = _words(
    "vel tra no qui mb ly zor ka fen dri ox sa lu pe thra gon wi ske ma rul "
    "bo ne ti gar hu plo sen dak fi mo"
)


@dataclass(frozen=True, slots=True)
class Note:
    path: str
    title: str
    text: str  # the whole file, frontmatter included


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    relevant: str  # the path of the one note that answers it


def _codename(rng: random.Random, taken: set[str]) -> str:
    """A made-up word no other note uses (30 syllables, 2 to 4 of them: ~700,000)."""
    while True:
        code = "".join(rng.sample(_SYLLABLES, rng.randint(2, 4))).capitalize()
        if code not in taken:
            taken.add(code)
            return code


def _note(rng: random.Random, number: int, taken: set[str]) -> tuple[Note, dict[str, str]]:
    topic, aside = rng.sample(sorted(TOPICS), 2)
    category, words, _ = TOPICS[topic]
    first, last, place, day = (
        rng.choice(FIRST),
        rng.choice(LAST),
        rng.choice(PLACES),
        rng.choice(DAYS),
    )
    code = _codename(rng, taken)
    who = f"{first} {last}"
    sentences = [rng.choice(OPENERS).format(who=who, place=place, day=day, topic=topic)]
    for _ in range(rng.randint(2, 3)):
        picked = rng.sample(words, 2)
        sentences.append(f"Discussed the {picked[0]} and the {picked[1]} in detail.")
        sentences.append(rng.choice(FILLER))
    # Real notes wander: a second subject, and a name only this note uses.
    other = rng.sample(TOPICS[aside][1], 2)
    sentences.append(f"On the side we also covered the {other[0]} and the {other[1]}.")
    sentences.insert(rng.randint(1, len(sentences)), f"Internal name for this: {code}.")
    sentences.append(rng.choice(FILLER))
    title = f"{topic.capitalize()} with {first} ({place})"
    tags = f"[{topic.split()[0]}, {place.lower()}]"
    text = f"---\ntags: {tags}\n---\n# {title}\n\n" + " ".join(sentences) + "\n"
    path = f"{category}/{number:05d} {topic} {first}.md"
    facts = {"topic": topic, "first": first, "place": place, "code": code}
    return Note(path, title, text), facts


def generate(count: int, *, queries: int = 0, seed: int = 7) -> tuple[list[Note], list[Query]]:
    """`count` notes and up to `queries` questions, each about one of them: two in
    three paraphrase the note's subject with its person and/or place, one in three
    looks a note up by the internal name only it uses."""
    rng = random.Random(seed)
    taken: set[str] = set()
    made = [_note(rng, number, taken) for number in range(count)]
    notes = [note for note, _ in made]
    counts: dict[tuple[str, ...], int] = {}
    for _, facts in made:
        for key in _keys(facts):
            counts[key] = counts.get(key, 0) + 1
    # In turn: person and place named, only one of them, the internal name; each
    # kind draws from its own shuffled queue, so a kind that rarely has a unique
    # answer (one name in a big vault) does not starve the others.
    queues = [rng.sample(made, len(made)) for _ in range(3)]
    asked: list[Query] = []
    kind = 0
    while len(asked) < queries and any(queues):
        kind = (kind + 1) % 3
        while queues[kind]:
            note, facts = queues[kind].pop()
            question, key = _question(rng, kind, facts)
            # Only questions no other note answers as well: one relevant note each.
            if counts.get(key, 1) == 1:
                asked.append(Query(question, note.path))
                break
    return notes, asked


def _question(rng: random.Random, kind: int, facts: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """A question of `kind` about the note with `facts`, and what makes it unique."""
    _, words, ask_words = TOPICS[facts["topic"]]
    # Mostly the asker's own words; now and then one the note used.
    ask = rng.choice(words) if rng.random() < 0.2 else rng.choice(ask_words)
    template = rng.choice((QUESTIONS[:3], QUESTIONS[3:], LOOKUPS)[kind])
    question = template.format(
        first=facts["first"], place=facts["place"], ask=ask, code=facts["code"]
    )
    if kind == 2:
        return question, (facts["code"],)
    named = [k for k in ("first", "place") if "{" + k + "}" in template]
    return question, (facts["topic"], *(facts[k] for k in named))


def _keys(facts: dict[str, str]) -> list[tuple[str, ...]]:
    topic, first, place = facts["topic"], facts["first"], facts["place"]
    return [(topic, first, place), (topic, first), (topic, place), (facts["code"],)]


def write_notes(notes: list[Note], root: Path) -> None:
    """Write the notes as files under `root` (an Obsidian-like folder to import)."""
    for note in notes:
        target = root / note.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(note.text, encoding="utf-8")
