"""Slash commands, and plain text without a model: a question is answered from the
notes, anything else is filed (bot.commands.capture says where)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.commands.answers import KEEP, search_answer
from bot.commands.capture import capture_arguments
from bot.commands.intent import is_leave_word, is_question, search_words
from bot.commands.notes import NoteCommands
from bot.events import Reply, Sender
from bot.people import Access, change_from_words, email_setting
from bot.tools import (
    MAX_SOURCES,
    ToolContext,
    ToolRunner,
    category_named,
    last_filed,
    log_line,
    source_buttons,
)
from notetext.dates import question_span

HELP = """I'm brainbot, your second brain. Tell me anything and I'll file it as a note;
ask a question (ending in "?", or starting with what/where/who/how...) and I'll search.
/capture TEXT  file a note (plain text works too; start with "project:" or "[person]" to choose)
/log TEXT  write a line into today's daily note ("log: TEXT" too)
/list [CATEGORY] [PAGE]  newest notes
/search QUERY  find notes ("a phrase", tea OR coffee, -draft, tag:x, after:2026-11-01...)
/get NOTE  show a note (NOTE: a path, a title or [[a link]]; quote names with spaces)
/get NOTE#HEADING  show one section of a note
/move NOTE CATEGORY  move a note ({move}links to it follow)
/rename NOTE NEW TITLE  rename a note and its file ({rename}links to it follow)
/delete NOTE  delete a note ({delete}git keeps it)
/append NOTE TEXT  add a line to a note
/tag NOTE TAG...  tag a note
/tick NOTE ITEM[, ITEM...]  tick tasks (`- [ ]` lines) off; /untick opens them again
/backlinks NOTE  notes that link to a note
/links NOTE  notes a note links to (missing ones marked)
/random [#TAG|CATEGORY]  an open note picked at random
/undo  undo the last change{undo}
/digest [weekly]  what matters today
/reminders  what I will remind you of ("remind me to call mom tomorrow at 9" sets one)
/link [CODE]  connect your Slack and Telegram accounts
/settings  digest time, time zone, weekly review day, email ADDRESS
fix: CATEGORY  refile the note I just saved
/quit  leave the chat (in the terminal)
{changes}"""
# How the kinds of BRAINBOT_DIRECT_CHANGES read in /help.
KIND_WORDS = {
    "append": "adding a line",
    "tag": "adding tags",
    "tick": "ticking tasks",
    "fill": "filling an empty field",
}
PAGE_SIZE = 10
BARE_NUMBER = re.compile(r"^\s*\d{1,4}\s*[.)]?\s*$")

CORRECTION = re.compile(
    r"^\s*(?:fix:\s*|actually,?\s+(?:that(?:'s| is| was)|it(?:'s| is| was))\s+(?:an?\s+)?)"
    r"(?P<category>[\w-]+)[.!]?\s*$",
    re.IGNORECASE,
)


def help_text(direct_changes: tuple[str, ...], approval_tools: Sequence[str]) -> str:
    """/help, saying which changes run at once (BRAINBOT_DIRECT_CHANGES) and which
    commands wait for Approve (BRAINBOT_APPROVAL_TOOLS)."""
    asks = "asks for approval; "
    waits = {
        # The note this chat filed last moves at once (bot.tools.runner): a correction.
        "move": "the note I just filed moves at once, others ask for approval; "
        if "move_entry" in approval_tools
        else "",
        "rename": asks if "rename_entry" in approval_tools else "",
        "delete": asks if "delete_entry" in approval_tools else "",
        "undo": " (asks for approval)" if "undo" in approval_tools else "",
    }
    kinds = [KIND_WORDS[k] for k in direct_changes if k in KIND_WORDS]
    if not kinds:
        return HELP.format(changes="Every change to a note asks for your approval first.", **waits)
    listed = ", ".join(kinds[:-1]) + (" and " if len(kinds) > 1 else "") + kinds[-1]
    return HELP.format(
        changes=f"Small changes ({listed}) happen at once with an Undo button; "
        "others ask for your approval.",
        **waits,
    )


class Router:
    def __init__(self, runner: ToolRunner, access: Access) -> None:
        self.runner = runner
        self.access = access
        self.notes = NoteCommands(runner)

    async def _call(self, ctx: ToolContext, name: str, **arguments: Any) -> list[Reply]:
        return await self.notes.call(ctx, name, **arguments)

    async def plain_text(self, ctx: ToolContext, text: str) -> list[Reply]:
        """A line that is not a command, without a model: a question is answered by
        searching; a stray choice number or a leave word is answered, not filed; any
        other line is captured."""
        if not any(c.isalnum() for c in text) and "\ufffd" in text:
            return [Reply("I could not read that line (it was not valid text). Nothing was saved.")]
        if BARE_NUMBER.match(text):
            return [
                Reply(
                    f"That choice is no longer open, so I did nothing with {text.strip()!r}. "
                    "Send /help for what I can do."
                )
            ]
        if is_leave_word(text):
            return [Reply("Nothing was saved. To leave the terminal chat, send /quit.")]
        if is_question(text):
            return await self.answer(ctx, text)
        return await self.capture(ctx, text)

    async def answer(self, ctx: ToolContext, question: str) -> list[Reply]:
        """Answer a question with the notes that best match its words (bot.commands.answers
        says how). Time words ("yesterday", "letzte Woche", "en mars") are no words to
        look for: the search tool reads them from the question as days
        (bot.tools.search_span), and a question with nothing else in it lists what was
        filed then."""
        ctx = replace(ctx, said=question)
        span = question_span(question, ctx.zone, ctx.now)
        query = search_words(span.rest) if span else search_words(question)
        outcome = await self.runner.call(
            ctx,
            "search_entries",
            {
                "query": query,
                "category": None,
                "tags": None,
                "status": None,
                "modified_after": None,
                "modified_before": None,
                "limit": 5,
            },
        )
        result = outcome.result
        used = result.data.get("range") if result else None
        if result is None or used is None:
            return await search_answer(ctx, self.runner, query, outcome)
        about = "" if used["listing"] else f'about "{query}" '
        named = f'notes {about}{used["notes"]} ("{used["words"]}")'
        if not result.data["results"]:
            return [Reply(f"I found no {named}.\n{KEEP}")]
        buttons = await source_buttons(ctx, list(result.read)[:MAX_SOURCES])
        return [Reply(f"The {named}:\n{result.text}\n{KEEP}", buttons=buttons)]

    async def list_page(self, ctx: ToolContext, rest: str) -> list[Reply]:
        """`/list [CATEGORY] [PAGE]`: ten notes a page, newest first, and how many more."""
        words = rest.lower().split()
        page = int(words.pop()) if words and words[-1].isdigit() else 1
        category = category_named(words[0], ctx.settings.categories) if words else None
        if len(words) > 1 or (words and category is None) or page < 1:
            names = ", ".join(ctx.settings.categories)
            return [Reply(f"Usage: /list [CATEGORY] [PAGE] (categories: {names})")]
        total = await ctx.store.count(category)
        entries = await ctx.store.list(category, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        if not entries:
            return [Reply("Nothing there yet." if page == 1 else f"There is no page {page}.")]
        lines = [f"- {e.title} ({e.path})" for e in entries]
        more = total - (page - 1) * PAGE_SIZE - len(entries)
        if more > 0:
            command = " ".join(["/list", *([category] if category else []), str(page + 1)])
            lines.append(f"… and {more} more: {command}")
        return [Reply("\n".join(lines))]

    async def capture(self, ctx: ToolContext, text: str) -> list[Reply]:
        """File `text` where the keywords say (bot.commands.capture)."""
        return await self._call(ctx, "capture", **await capture_arguments(ctx, text))

    async def correction(self, ctx: ToolContext, text: str) -> list[Reply] | None:
        """`fix: idea` / "actually that's a project": refile the last note of this chat."""
        match = CORRECTION.match(text)
        if not match:
            return None
        word = match.group("category").lower()
        category = category_named(word, ctx.settings.categories)
        if category is None:
            if not text.lstrip().lower().startswith("fix:"):
                return None  # "actually it's a pity..." is a thought, not a correction
            names = ", ".join(ctx.settings.categories)
            return [Reply(f"{word!r} is not a category; use one of {names}. Nothing changed.")]
        last = await last_filed(ctx)
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
            return [Reply(help_text(ctx.settings.direct_changes, self.runner.approval_tools))]
        if name == "/capture":
            return await self.capture(ctx, rest) if rest else [Reply("Usage: /capture TEXT")]
        if name == "/log":
            return [Reply(await log_line(ctx, rest) if rest else "Usage: /log TEXT")]
        if name == "/list":
            return await self.list_page(ctx, rest)
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
        on_note = {
            "/get": self.notes.get,
            "/move": self.notes.move,
            "/rename": self.notes.rename,
            "/delete": self.notes.delete,
            "/append": self.notes.append,
            "/tag": self.notes.tag,
            "/tick": self.notes.tick,
            "/untick": self.notes.untick,
            "/backlinks": self.notes.backlinks,
            "/links": self.notes.links,
            "/random": self.notes.random,
        }.get(name)
        if on_note is not None:
            return await on_note(ctx, rest)
        if name in ("/quit", "/exit"):
            return [Reply("Nothing to leave here; just stop writing. I'm here when you need me.")]
        if name == "/undo":
            return await self._call(ctx, "undo", change=rest or None)
        if name == "/reminders":
            return await self._call(ctx, "list_reminders")
        if name == "/digest":
            kind = "weekly" if rest.lower().startswith("week") else "daily"
            return await self._call(ctx, "generate_digest", kind=kind)
        if name == "/link":
            if rest:
                return [Reply(await self.access.finish_link(sender, rest, ctx.now))]
            return [Reply(await self.access.start_link(ctx.person, ctx.now))]
        if name == "/settings":
            return [Reply(await self.settings(ctx, words))]
        return [Reply(f"I don't know {name}. Send /help for what I can do.")]

    @staticmethod
    async def settings(ctx: ToolContext, words: list[str]) -> str:
        """`/settings`, `/settings digest 07:30|on|off`, `/settings timezone Europe/Berlin`,
        `/settings weekly sunday`."""
        if ctx.people is None:
            return "Settings cannot be changed here."
        if not words:
            return ctx.people.describe(ctx.person)
        if words[0].lower() == "email":  # addresses whose mail is filed (bot.mail)
            url = ctx.settings.imap_url
            return await email_setting(ctx.records, ctx.person, words[1:], ctx.now, url)
        try:
            change = change_from_words(words)
        except ValueError as exc:
            return str(exc)
        person = await ctx.people.update_settings(ctx.person, change)
        return "Saved. " + ctx.people.describe(person)
