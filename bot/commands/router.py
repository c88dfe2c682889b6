"""Slash commands, one record each (COMMANDS, at the end: /help, a platform's menu and
the dispatch are made from them), and plain text without a model: a question is
answered from the notes, anything else is filed (bot.commands.capture says where)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from bot.commands.answers import answer_question
from bot.commands.capture import capture_arguments
from bot.commands.command import Call, Command, dispatch_of, menu_of, written_of
from bot.commands.command import help_text as command_help
from bot.commands.intent import Kind, is_leave_word, kind_of
from bot.commands.notes import NoteCommands
from bot.commands.syncing import sync_now
from bot.events import Reply, Sender
from bot.people import Access, change_from_words, email_setting
from bot.tools import (
    ToolContext,
    ToolRunner,
    category_named,
    delete_entry,
    last_filed,
    log_line,
    move_entry,
    notes_named,
    rename_entry,
    undo,
)

PAGE_SIZE = 10
BARE_NUMBER = re.compile(r"^\s*\d{1,4}\s*[.)]?\s*$")

# The answer to small talk ("hi", "thanks"), with a model or without (then it says
# how to keep it anyway: nothing is filed).
GREETING = "Hello! Tell me a thought to keep, or ask me about your notes."
NOT_SAVED = "(I did not save that. To keep it as a note: /capture TEXT; /help lists the rest)"

CORRECTION = re.compile(
    r"^\s*(?:fix:\s*|actually,?\s+(?:that(?:'s| is| was)|it(?:'s| is| was))\s+(?:an?\s+)?)"
    r"(?P<category>[\w-]+)[.!]?\s*$",
    re.IGNORECASE,
)


def help_text(direct_changes: Sequence[str], approval_tools: Collection[str]) -> str:
    """/help, saying which changes run at once (BRAINBOT_DIRECT_CHANGES) and which
    commands wait for Approve (BRAINBOT_APPROVAL_TOOLS)."""
    return command_help(COMMANDS, direct_changes, approval_tools)


def menu() -> tuple[tuple[str, str], ...]:
    """The commands a platform's menu offers (Telegram's `/` list), as (name, what it
    does)."""
    return menu_of(COMMANDS)


def command_names() -> frozenset[str]:
    """Every name a command is sent by (`/name` and its aliases): what a platform that
    takes commands as words (Slack's `/brain WORD ...`) forwards as a command."""
    return frozenset(dispatch_of(COMMANDS))


def as_command(text: str) -> str:
    """A message whose first words write a command out ("log: bought milk") as that
    command ("/log bought milk"); any other message as it is."""
    for written, command in _WRITTEN:
        if written.match(text):
            return written.sub(command, text, count=1)
    return text


# Read a note's link again (bot.enrich); file words on the one capture path (bot.capture).
Reread = Callable[[ToolContext, str], Awaitable[str]]
Captures = Callable[[ToolContext, str], Awaitable[list[Reply]]]


class Router:
    """Answers what needs no model: a command, a correction, plain text."""

    def __init__(
        self,
        runner: ToolRunner,
        access: Access,
        *,
        captures: Captures | None = None,
        reread: Reread | None = None,
    ) -> None:
        self.runner = runner
        self.access = access
        self.notes = NoteCommands(runner)
        self.captures = captures
        self.reread = reread

    async def _call(self, ctx: ToolContext, name: str, **arguments: Any) -> list[Reply]:
        return await self.notes.call(ctx, name, **arguments)

    async def plain_text(
        self, ctx: ToolContext, text: str, kind: Kind | None = None
    ) -> list[Reply]:
        """A line that is not a command, without a model, by its kind (bot.commands.intent;
        the engine decides it once and hands it here): a question is answered by
        searching; small talk, a stray choice number or a leave word is answered, not
        filed; any other line is captured."""
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
        kind = kind or kind_of(text)
        if kind == "question":
            return await self.answer(ctx, text)
        if kind == "small_talk":  # "hi", "thanks", "ok": a note of it is one nobody wanted
            return [Reply(f"{GREETING} {NOT_SAVED}")]
        return await (self.captures or self.capture)(ctx, text)  # the one capture path

    async def answer(self, ctx: ToolContext, question: str) -> list[Reply]:
        """Answer a question with the notes that best match its words (bot.commands.answers)."""
        return await answer_question(ctx, self.runner, question)

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
        """A `/command` (`/command@thisbot` in a group), run by its record (COMMANDS)."""
        word, _, rest = text.strip().partition(" ")
        name = word.split("@", 1)[0].lower()
        command = _DISPATCH.get(name.removeprefix("/"))
        if command is None or command.run is None:
            return [Reply(f"I don't know {name}. Send /help for what I can do.")]
        return await command.run(self, Call(ctx, sender, command.name, rest.strip(), command.usage))

    # -- the commands' handlers (COMMANDS names them) --------------------------------

    async def on_help(self, call: Call) -> list[Reply]:
        settings = call.ctx.settings
        return [Reply(help_text(settings.direct_changes, self.runner.approval_tools))]

    async def on_capture(self, call: Call) -> list[Reply]:
        """`/capture TEXT` (a Slack shortcut, Telegram's /save): the one capture path."""
        if not call.rest:
            return call.usage_reply()
        capture = self.captures or self.capture
        return await capture(call.ctx, call.rest)

    async def on_reread(self, call: Call) -> list[Reply]:
        """`/reread NOTE`: its link read again, when its reading never succeeded."""
        found = await notes_named(call.ctx.store, call.rest, exact=True) if call.rest else []
        if len(found) != 1 or self.reread is None:
            return call.usage_reply(" (one note's path or title, as /list shows it)")
        return [Reply(await self.reread(call.ctx, found[0].path))]

    async def on_log(self, call: Call) -> list[Reply]:
        return [Reply(await log_line(call.ctx, call.rest))] if call.rest else call.usage_reply()

    async def on_list(self, call: Call) -> list[Reply]:
        """`/list [CATEGORY] [PAGE]`: ten notes a page, newest first, and how many more."""
        ctx = call.ctx
        words = call.rest.lower().split()
        page = int(words.pop()) if words and words[-1].isdigit() else 1
        category = category_named(words[0], ctx.settings.categories) if words else None
        if len(words) > 1 or (words and category is None) or page < 1:
            return call.usage_reply(f" (categories: {', '.join(ctx.settings.categories)})")
        total = await ctx.store.count(category)
        entries = await ctx.store.list(category, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
        if not entries:
            return [Reply("Nothing there yet." if page == 1 else f"There is no page {page}.")]
        lines = [f"- {e.title} ({e.path})" for e in entries]
        more = total - (page - 1) * PAGE_SIZE - len(entries)
        if more > 0:
            command = " ".join([f"/{call.name}", *([category] if category else []), str(page + 1)])
            lines.append(f"… and {more} more: {command}")
        return [Reply("\n".join(lines))]

    async def on_search(self, call: Call) -> list[Reply]:
        """`/search QUERY`: the words and the search syntax, no time words read (those
        are for questions), so `/search Friday` finds the notes that say Friday."""
        if not call.rest:
            return call.usage_reply()
        return await self._call(
            replace(call.ctx, syntax_only=True),
            "search_entries",
            query=call.rest,
            category=None,
            tags=None,
            status=None,
            modified_after=None,
            modified_before=None,
            limit=10,
        )

    async def on_undo(self, call: Call) -> list[Reply]:
        return await self._call(call.ctx, "undo", change=call.rest or None)

    async def on_digest(self, call: Call) -> list[Reply]:
        kind = "weekly" if call.rest.lower().startswith("week") else "daily"
        return await self._call(call.ctx, "generate_digest", kind=kind)

    async def on_sync(self, call: Call) -> list[Reply]:
        """`/sync`: fetch what devices pushed to the vault's git remote, merge it,
        index it and push the bot's changes now (bot.commands.syncing)."""
        return await sync_now(call.ctx)

    async def on_reminders(self, call: Call) -> list[Reply]:
        return await self._call(call.ctx, "list_reminders")

    async def on_link(self, call: Call) -> list[Reply]:
        if call.rest:
            return [Reply(await self.access.finish_link(call.sender, call.rest, call.ctx.now))]
        return [Reply(await self.access.start_link(call.ctx.person, call.ctx.now))]

    async def on_settings(self, call: Call) -> list[Reply]:
        """`/settings`, `/settings digest 07:30|on|off`, `/settings timezone Europe/Berlin`,
        `/settings weekly sunday`, `/settings email ADDRESS`."""
        ctx, words = call.ctx, call.rest.split()
        if ctx.people is None:
            return [Reply("Settings cannot be changed here.")]
        if not words:
            return [Reply(ctx.people.describe(ctx.person))]
        if words[0].lower() == "email":  # addresses whose mail is filed (bot.mail)
            url = ctx.settings.imap_url
            return [Reply(await email_setting(ctx.records, ctx.person, words[1:], ctx.now, url))]
        try:
            change = change_from_words(words)
        except ValueError as exc:
            return [Reply(str(exc))]
        person = await ctx.people.update_settings(ctx.person, change)
        return [Reply("Saved. " + ctx.people.describe(person))]

    async def on_quit(self, call: Call) -> list[Reply]:
        return [Reply("Nothing to leave here; just stop writing. I'm here when you need me.")]


def _on_note(
    method: Callable[[NoteCommands, Call], Awaitable[list[Reply]]],
) -> Callable[[Router, Call], Awaitable[list[Reply]]]:
    """A command on one note, run by NoteCommands (which finds the note it names)."""
    return lambda router, call: method(router.notes, call)


ASKS = "asks for approval; "
# Every command, in the order /help lists them. `tool` and `waits`: what /help says
# when BRAINBOT_APPROVAL_TOOLS holds the tool the command runs.
COMMANDS: tuple[Command[Router], ...] = (
    Command("start", Router.on_help, menu="What this bot does"),
    Command("help", Router.on_help, menu="How to capture, find and change notes"),
    Command(
        "capture",
        Router.on_capture,
        "/capture TEXT",
        'file a note (plain text works too; start with "project:" or "[person]" to choose)',
    ),
    Command(
        "log",
        Router.on_log,
        "/log TEXT",
        'write a line into today\'s daily note ("log: TEXT" too)',
        written="log:",
    ),
    Command(
        "list",
        Router.on_list,
        "/list [CATEGORY] [PAGE]",
        "newest notes",
        menu="Recent entries, e.g. /list projects",
    ),
    Command(
        "search",
        Router.on_search,
        "/search QUERY",
        'find notes ("a phrase", tea OR coffee, -draft, tag:x, after:2026-11-01...)',
        menu="Search your notes, e.g. /search budget",
    ),
    Command(
        "get",
        _on_note(NoteCommands.get),
        "/get NOTE",
        "show a note (NOTE: a path, a title or [[a link]]; quote names with spaces)",
        more=("/get NOTE#HEADING  show one section of a note",),
    ),
    Command(
        "move",
        _on_note(NoteCommands.move),
        "/move NOTE CATEGORY",
        "move a note ({waits}links to it follow)",
        tool=move_entry.name,
        # The note this chat filed last moves at once: a correction (bot.tools.relocation).
        waits="the note I just filed moves at once, others ask for approval; ",
    ),
    Command(
        "rename",
        _on_note(NoteCommands.rename),
        "/rename NOTE NEW TITLE",
        "rename a note and its file ({waits}links to it follow)",
        tool=rename_entry.name,
        waits=ASKS,
    ),
    Command(
        "delete",
        _on_note(NoteCommands.delete),
        "/delete NOTE",
        "delete a note ({waits}git keeps it)",
        tool=delete_entry.name,
        waits=ASKS,
    ),
    Command("append", _on_note(NoteCommands.append), "/append NOTE TEXT", "add a line to a note"),
    Command(
        "reread",
        Router.on_reread,
        "/reread NOTE",
        "read a note's link again, when reading it failed before",
    ),
    Command("tag", _on_note(NoteCommands.tag), "/tag NOTE TAG...", "tag a note"),
    Command(
        "tick",
        _on_note(NoteCommands.tick),
        "/tick NOTE ITEM[, ITEM...]",
        "tick tasks (`- [ ]` lines) off; /untick opens them again",
    ),
    Command("untick", _on_note(NoteCommands.untick), "/untick NOTE ITEM[, ITEM...]"),
    Command(
        "backlinks",
        _on_note(NoteCommands.backlinks),
        "/backlinks NOTE",
        "notes that link to a note",
    ),
    Command(
        "links",
        _on_note(NoteCommands.links),
        "/links NOTE",
        "notes a note links to (missing ones marked)",
    ),
    Command(
        "random",
        _on_note(NoteCommands.random),
        "/random [#TAG|CATEGORY]",
        "an open note picked at random",
    ),
    Command(
        "undo",
        Router.on_undo,
        "/undo",
        "undo the last change{waits}",
        menu="Undo a recent change",
        tool=undo.name,
        waits=" (asks for approval)",
    ),
    Command(
        "digest",
        Router.on_digest,
        "/digest [weekly]",
        "what matters today",
        menu="Today's digest, now",
    ),
    Command(
        "reminders",
        Router.on_reminders,
        "/reminders",
        'what I will remind you of ("remind me to call mom tomorrow at 9" sets one)',
        menu="What I will remind you of",
    ),
    Command(
        "sync",
        Router.on_sync,
        "/sync",
        "bring in what your devices pushed to the vault's git remote, and push mine",
        menu="Sync your notes with your devices now",
    ),
    Command(
        "link",
        Router.on_link,
        "/link [CODE]",
        "connect your Slack and Telegram accounts",
        menu="Link this chat to your other accounts",
    ),
    Command(
        "settings",
        Router.on_settings,
        "/settings",
        "digest time, time zone, weekly review day, email ADDRESS",
        menu="Your timezone and digest time",
    ),
    # Said in words, not sent: Router.correction reads it (and "actually, that's a …").
    Command("fix", None, "fix: CATEGORY", "refile the note I just saved"),
    Command("quit", Router.on_quit, "/quit", "leave the chat (in the terminal)", aliases=("exit",)),
)
_DISPATCH = dispatch_of(COMMANDS)
_WRITTEN = written_of(COMMANDS)
