"""Plain text filed without a model: the category its hint (`project:`, `[person]`) or
its keywords say, else the inbox; a title from its first sentence, or from what a
reminder is about ("remind me to call mom tomorrow at 9" is "Call mom"); a person's
note named after the person, so `[[Their Name]]` links to it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.dates import find_when
from bot.tools import ToolContext, category_named, title_from

# "Sarah Kim - works on budget", "Sarah Kim, works on budget", "Sarah Kim: budget".
PERSON_NAME = re.compile(
    r"^(?P<name>[^\W\d_][\w'\u2019.-]*(?:\s+[^\W\d_][\w'\u2019.-]*){0,3})\s*(?:[-\u2013\u2014:,(]|$)\s*(?P<rest>.*)$",
    re.DOTALL,
)
KEYWORDS = {
    "people": (
        "met ",
        "meet ",
        "call with",
        "talk to",
        "talked to",
        "birthday",
        "follow up with",
        "catch up with",
        "lunch with",
        "coffee with",
        "he said",
        "she said",
    ),
    "projects": (
        "project",
        "launch",
        "milestone",
        "ship ",
        "build ",
        "roadmap",
        "deadline for",
        "next step",
        "finish the",
    ),
    "admin": (
        "pay ",
        "bill",
        "invoice",
        "renew",
        "appointment",
        "tax",
        "dentist",
        "doctor",
        "passport",
        "insurance",
        "book a",
        "subscription",
        "due ",
    ),
    "ideas": ("idea", "what if", "maybe we could", "could we", "someday", "wouldn't it be"),
}
HINT = re.compile(r"^\s*(?:\[(?P<bracket>[\w-]+)\]|(?P<colon>[\w-]+):)\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Guess:
    category: str
    confidence: float
    text: str


def classify(text: str, categories: tuple[str, ...]) -> Guess:
    """Explicit hints (`project:`, `[person]`) first, then keywords; else the inbox."""
    match = HINT.match(text)
    if match:
        word = (match.group("bracket") or match.group("colon")).lower()
        category = category_named(word, categories)
        if category is not None:
            return Guess(category, 1.0, text[match.end() :].strip() or text)
    lowered = f" {text.lower()} "
    scores = {
        category: sum(lowered.count(k) for k in words)
        for category, words in KEYWORDS.items()
        if category in categories
    }
    best = max(scores, key=lambda c: scores[c], default=None)
    if best is not None and scores[best] > 0:
        return Guess(best, 0.7, text)
    return Guess("inbox", 0.3, text)


def capture_arguments(ctx: ToolContext, text: str) -> dict[str, Any]:
    """The `capture` call for `text`."""
    guess = classify(text, ctx.settings.categories)
    title, body = title_from(guess.text), guess.text
    when = find_when(
        guess.text,
        now=ctx.now,
        zone=ctx.zone,
        default_time=ctx.settings.reminder_time,
    )
    if when.found:
        # "remind me to call mom tomorrow at 9": a task called "Call mom", with a
        # date, is an errand when nothing else claimed it (the capture reads the date).
        if when.rest.strip():
            title = title_from(when.rest.strip()[:1].upper() + when.rest.strip()[1:])
        if guess.category == "inbox" and "admin" in ctx.settings.categories:
            guess = Guess("admin", 0.7, guess.text)
    if guess.category == "people" and guess.confidence == 1.0:
        # An explicit person note is named after the person, so [[Their Name]] links.
        person = PERSON_NAME.match(guess.text)
        if person:
            title, body = person.group("name"), person.group("rest").strip() or guess.text
    return {
        "category": guess.category,
        "title": title,
        "body": body,
        "confidence": guess.confidence,
        "tags": [],
        "fields": [],
    }
