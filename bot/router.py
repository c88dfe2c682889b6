"""Slash commands, and plain-text capture with a simple classifier when no LLM is set."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bot.events import Reply, Sender
from bot.people import People
from bot.toolrunner import Outcome, ToolRunner
from bot.tools.registry import ToolContext

HELP = """I'm brainbot, your second brain. Tell me anything and I'll file it as a note.
/capture TEXT  file a note (plain text works too; start with "project:" or "[person]" to choose)
/list [CATEGORY]  newest notes
/search QUERY  find notes
/get PATH  show a note
/move PATH CATEGORY  move a note (asks for approval)
/delete PATH  delete a note (asks for approval; git keeps it)
/undo  undo the last change (asks for approval)
/digest [weekly]  what matters today
/link [CODE]  connect your Slack and Telegram accounts
/settings  digest time, time zone, weekly review day
fix: CATEGORY  refile the note I just saved"""

ALIASES = {
    "person": "people",
    "people": "people",
    "project": "projects",
    "projects": "projects",
    "idea": "ideas",
    "ideas": "ideas",
    "admin": "admin",
    "todo": "admin",
    "task": "admin",
    "inbox": "inbox",
}
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
CORRECTION = re.compile(
    r"^\s*(?:fix:\s*|actually,?\s+(?:that(?:'s| is| was)|it(?:'s| is| was))\s+(?:an?\s+)?)"
    r"(?P<category>[\w-]+)[.!]?\s*$",
    re.IGNORECASE,
)


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
        category = ALIASES.get(word, word)
        if category in categories:
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


def title_from(text: str, limit: int = 60) -> str:
    first = re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0].strip() or "Untitled"
    if len(first) <= limit:
        return first.rstrip(".")
    return first[:limit].rsplit(" ", 1)[0] + "…"


def outcome_replies(outcomes: list[Outcome]) -> list[Reply]:
    replies: list[Reply] = []
    for outcome in outcomes:
        if outcome.approval is not None:
            replies.append(outcome.approval)
        elif outcome.result is not None:
            replies.append(Reply(outcome.result.text, buttons=outcome.result.buttons))
        else:
            replies.append(Reply("Sorry: " + json.loads(outcome.content)["error"]))
    return replies


class Router:
    def __init__(self, runner: ToolRunner, people: People) -> None:
        self.runner = runner
        self.people = people

    async def _call(self, ctx: ToolContext, name: str, **arguments: Any) -> list[Reply]:
        return outcome_replies([await self.runner.call(ctx, name, arguments)])

    async def capture(self, ctx: ToolContext, text: str) -> list[Reply]:
        guess = classify(text, ctx.settings.categories)
        return await self._call(
            ctx,
            "capture",
            category=guess.category,
            title=title_from(guess.text),
            body=guess.text,
            confidence=guess.confidence,
            tags=[],
            fields=[],
        )

    async def correction(self, ctx: ToolContext, text: str) -> list[Reply] | None:
        """`fix: idea` / "actually that's a project": refile the last note of this chat."""
        match = CORRECTION.match(text)
        if not match:
            return None
        word = match.group("category").lower()
        category = ALIASES.get(word, word)
        if category not in ctx.settings.categories:
            return None
        last = await ctx.records.last_written_entry(
            ctx.conversation.key, ctx.person.id, ctx.now - timedelta(days=1)
        )
        if last is None:
            return [
                Reply("I haven't filed anything in this chat recently, so there is nothing to fix.")
            ]
        return await self._call(ctx, "move_entry", path=last, category=category)

    async def command(self, ctx: ToolContext, sender: Sender, text: str) -> list[Reply]:
        name, _, rest = text.strip().partition(" ")
        name = name.split("@", 1)[0].lower()
        rest = rest.strip()
        words = rest.split()
        if name in ("/start", "/help"):
            return [Reply(HELP)]
        if name == "/capture":
            return await self.capture(ctx, rest) if rest else [Reply("Usage: /capture TEXT")]
        if name == "/list":
            category = ALIASES.get(rest.lower(), rest.lower()) or None
            return await self._call(
                ctx, "list_entries", category=category, status=None, tag=None, limit=10
            )
        if name == "/search":
            if not rest:
                return [Reply("Usage: /search QUERY")]
            return await self._call(
                ctx,
                "search_entries",
                query=rest,
                category=None,
                tags=None,
                status=None,
                modified_after=None,
                modified_before=None,
                limit=10,
            )
        if name == "/get":
            return (
                await self._call(ctx, "get_entry", path=rest)
                if rest
                else [Reply("Usage: /get PATH")]
            )
        if name == "/move":
            if len(words) != 2:
                return [Reply("Usage: /move PATH CATEGORY")]
            return await self._call(
                ctx, "move_entry", path=words[0], category=ALIASES.get(words[1].lower(), words[1])
            )
        if name == "/delete":
            return (
                await self._call(ctx, "delete_entry", path=rest)
                if rest
                else [Reply("Usage: /delete PATH")]
            )
        if name == "/undo":
            return await self._call(ctx, "undo", change=rest or None)
        if name == "/digest":
            kind = "weekly" if rest.lower().startswith("week") else "daily"
            return await self._call(ctx, "generate_digest", kind=kind)
        if name == "/link":
            if rest:
                return [Reply(await self.people.finish_link(sender, rest, ctx.now))]
            return [Reply(await self.people.start_link(ctx.person, ctx.now))]
        if name == "/settings":
            return [Reply(await self.people.change_settings(ctx.person, words))]
        return [Reply(f"I don't know {name}. Send /help for what I can do.")]
