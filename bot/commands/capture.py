"""Plain text filed without a model: the category its hint (`project:`, `[person]`) or
its keywords say, else the inbox; a title from its first sentence (up to a "next:"),
or from what a reminder is about ("remind me to call mom tomorrow at 9" is "Call mom");
its markup read into fields (bot.commands.structure); one page per person, named after
them so `[[Their Name]]` links to it, that later thoughts link to
(bot.commands.about_person)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.commands.about_person import PersonMention, linked, mentioned, person_page
from bot.commands.structure import titled
from bot.tools import ToolContext, category_named
from storage.text.person_names import NAME_WORD, Mention
from storage.vault import ADMIN, IDEAS, INBOX, PEOPLE, PROJECTS

# "Sarah Kim - works on budget", "Sarah Kim, works on budget", "Sarah Kim: budget".
PERSON_NAME = re.compile(
    rf"^(?P<name>{NAME_WORD}(?:\s+{NAME_WORD}){{0,3}})\s*(?:[-\u2013\u2014:,(]|$)\s*(?P<rest>.*)$",
    re.DOTALL,
)
KEYWORDS = {
    PEOPLE: (
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
    PROJECTS: (
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
    ADMIN: (
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
    IDEAS: ("idea", "what if", "maybe we could", "could we", "someday", "wouldn't it be"),
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
    return Guess(INBOX, 0.3, text)


async def capture_arguments(ctx: ToolContext, text: str) -> dict[str, Any]:
    """The `capture` call for `text`: a category, a title and next action from its own
    words, its #tags; a person it names gets one page that later thoughts link to."""
    categories = ctx.settings.categories
    guess = classify(text, categories)
    # The body keeps the person's words whole ("Idea: …" too); the hint only picks the
    # category, and the title and markup are read from the words after it.
    body, words = text, guess.text
    mention = await _person(ctx, guess) if PEOPLE in categories else None
    if mention is not None and mention.note is None:
        # The first thought about someone named in full starts their page, named
        # after them so [[Their Name]] links to it.
        rest = _rest_after_name(guess) if guess.confidence == 1.0 else None
        return _call(mention.name, PEOPLE, max(guess.confidence, 0.7), rest or words, ())
    if mention is not None and mention.note is not None:
        body = linked(body, mention.note, mention.said)
        words = linked(words, mention.note, mention.said)
    if guess.category == PEOPLE:
        # A person's page is only ever that person's: a thought about them (or a
        # birthday of no one known) is filed by its other words and links to it.
        guess = classify(guess.text, tuple(c for c in categories if c != PEOPLE))
    markup = titled(words, ctx.when)
    when = ctx.when(body)
    if when.found and guess.category == INBOX and ADMIN in categories:
        # A dated task is an errand when nothing else claimed it (the capture reads the date).
        guess = Guess(ADMIN, 0.7, guess.text)
    action = markup.next_action
    fields = [{"name": "next_action", "value": action}] if action else []
    return _call(markup.title, guess.category, guess.confidence, body, markup.tags, fields)


def _call(
    title: str,
    category: str,
    confidence: float,
    body: str,
    tags: tuple[str, ...],
    fields: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    return {
        "category": category,
        "title": title,
        "body": body,
        "confidence": confidence,
        "tags": list(tags),
        "fields": fields or [],
    }


async def _person(ctx: ToolContext, guess: Guess) -> PersonMention | None:
    """Who the thought is about: the person a `[person]` hint names, else a mention."""
    if guess.category == PEOPLE and guess.confidence == 1.0:
        match = PERSON_NAME.match(guess.text)
        if match:
            name = match.group("name")
            page = await person_page(ctx.store, name)
            return Mention(name, (page,) if page is not None else (), name)
    return await mentioned(ctx.store, guess.text)


def _rest_after_name(guess: Guess) -> str | None:
    """ "Sarah Kim - works on budget" → "works on budget", for her page's text."""
    match = PERSON_NAME.match(guess.text)
    return match.group("rest").strip() if match else None
