"""Commands on one note, named the way a person names it: `/get`, `/move`, `/rename`,
`/delete`, `/append`, `/tag`, `/tick`, `/untick`, `/backlinks`, `/links` (and `/random`,
which draws one). When a name fits several notes,
the reply offers a numbered choice; picking one runs the command on that note."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.buttons import ButtonHandler
from bot.commands.command import Call
from bot.events import Button, Reply
from bot.tools import (
    Outcome,
    ToolContext,
    ToolError,
    ToolRunner,
    category_named,
    clean_reference,
    in_team,
    notes_named,
    split_leading_reference,
)
from storage import Entry, StorageError
from storage.text import wikilinks

CHOICES_SHOWN = 8
# The shortest leading words taken as part of a note's title: shorter ones ("a", "to")
# are in nearly every title.
PART_OF_TITLE_MIN = 3


def outcome_replies(outcomes: list[Outcome]) -> list[Reply]:
    """What to say for tool outcomes: an approval request, a result, or the error."""
    replies: list[Reply] = []
    for outcome in outcomes:
        if outcome.approval is not None:
            replies.append(outcome.approval)
        elif outcome.result is not None:
            replies.append(Reply(outcome.result.text, buttons=outcome.result.buttons))
        else:
            replies.append(Reply("Sorry: " + json.loads(outcome.content)["error"]))
    return replies


class NoteCommands:
    """Finds the note a command names, then runs the command's tool on its path."""

    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner

    async def call(self, ctx: ToolContext, name: str, **arguments: Any) -> list[Reply]:
        return outcome_replies([await self.runner.call(ctx, name, arguments)])

    async def get(self, call: Call) -> list[Reply]:
        """`/get NOTE`, or `/get NOTE#Heading` (`[[Note#Heading]]`) for one section."""
        if not call.rest:
            return call.usage_reply(" (a path, a title or [[a link]]; NOTE#Heading)")
        ctx = call.ctx
        rest, section = heading_part(call.rest)
        arguments = {"section": section} if section else {}
        try:
            team = await in_team(ctx, rest)
        except ToolError as exc:  # a team the person is not (or no longer) in
            return [Reply(str(exc))]
        if team is not None:  # `team:path`, as a search showed it
            return await self.call(ctx, "get_entry", path=rest.strip(), **arguments)
        return await self._on_note(ctx, rest, "get_entry", arguments)

    async def links(self, call: Call) -> list[Reply]:
        if not call.rest:
            return call.usage_reply()
        return await self._on_note(call.ctx, call.rest, "list_forward_links", {})

    async def random(self, call: Call) -> list[Reply]:
        """`/random`, `/random #tag` or `/random CATEGORY`: an open note drawn at random."""
        word = call.rest
        if len(word.split()) > 1 or word == "#":
            return call.usage_reply()
        tag = word[1:] if word.startswith("#") else None
        category = word if word and tag is None else None
        return await self.call(call.ctx, "get_random_note", tag=tag, category=category)

    async def delete(self, call: Call) -> list[Reply]:
        if not call.rest:
            return call.usage_reply()
        return await self._on_note(call.ctx, call.rest, "delete_entry", {})

    async def backlinks(self, call: Call) -> list[Reply]:
        if not call.rest:
            return call.usage_reply()
        return await self._on_note(call.ctx, call.rest, "list_backlinks", {})

    async def move(self, call: Call) -> list[Reply]:
        ctx = call.ctx
        reference, _, word = call.rest.rpartition(" ")
        category = category_named(word, ctx.settings.categories)
        if not reference.strip() or category is None:
            return call.usage_reply(f" (one of {', '.join(ctx.settings.categories)})")
        return await self._on_note(ctx, reference, "move_entry", {"category": category})

    async def rename(self, call: Call) -> list[Reply]:
        """`/rename NOTE NEW TITLE`: the file name follows the title."""
        found = await self._leading_note(call.ctx, call.rest)
        if found is None or not found[1]:
            return call.usage_reply(' (quote a name with spaces: /rename "Green tea" Matcha)')
        reference, title = found
        return await self._on_note(
            call.ctx, reference, "rename_entry", {"title": title, "file_name": None}
        )

    async def append(self, call: Call) -> list[Reply]:
        found = await self._leading_note(call.ctx, call.rest)
        if found is None or not found[1]:
            return call.usage_reply(' (quote a name with spaces: /append "Shopping list" milk)')
        reference, text = found
        arguments = {"set_fields": None, "remove_fields": None, "body": None, "append": text}
        return await self._on_note(call.ctx, reference, "update_entry", arguments)

    async def tag(self, call: Call) -> list[Reply]:
        ctx, words = call.ctx, call.rest.split()
        tags: list[str] = []
        while len(words) > 1 and words[-1].startswith("#"):
            tags.insert(0, words.pop())
        if not tags and len(words) > 1:
            tags.append(words.pop())
        tags = [t.lstrip("#").lower() for t in tags if t.lstrip("#")]
        if not tags:
            return call.usage_reply()
        arguments = {"remove_fields": None, "body": None, "append": None, "add_tags": tags}
        return await self._on_note(ctx, " ".join(words), "update_entry", arguments)

    async def tick(self, call: Call) -> list[Reply]:
        return await self._tick(call, done=True)

    async def untick(self, call: Call) -> list[Reply]:
        return await self._tick(call, done=False)

    async def _tick(self, call: Call, *, done: bool) -> list[Reply]:
        """`/tick NOTE ITEM[, ITEM...]`: tick (or untick) the task lines the items name."""
        found = await self._leading_note(call.ctx, call.rest)
        items = [i.strip() for i in re.split(r"[,;]", found[1]) if i.strip()] if found else []
        if found is None or not items:
            example = f'/{call.name} "Shopping list" milk, eggs'
            return call.usage_reply(f" (quote a name with spaces: {example})")
        arguments = {"items": items, "done": done}
        return await self._on_note(call.ctx, found[0], "tick_tasks", arguments)

    async def pick(self, ctx: ToolContext, value: str) -> list[Reply]:
        """One of several same-named notes was picked (`NoteChoice`): run the command
        on it."""
        action_id, _, index = value.partition(".")
        action = await ctx.records.buttons.get(action_id)
        if action is None or action.kind != "pick" or action.user_id != ctx.person.id:
            return [Reply("That choice is unknown; nothing changed.")]
        paths = list(action.payload["paths"])
        if not index.isdigit() or int(index) >= len(paths):
            return [Reply("That choice is unknown; nothing changed.")]
        if await ctx.records.buttons.use(action_id, ctx.now) is None:
            return []
        try:
            entry = await ctx.store.read(paths[int(index)])
        except StorageError as exc:
            return [Reply(f"That note is gone: {exc}. Nothing changed.")]
        return await self._run(ctx, entry, action.payload["tool"], action.payload["arguments"])

    async def _on_note(
        self, ctx: ToolContext, reference: str, tool: str, arguments: dict[str, Any]
    ) -> list[Reply]:
        try:
            found = await notes_named(ctx.store, reference)
        except StorageError as exc:
            return [Reply(f"Sorry: {exc}. Nothing changed.")]
        name = clean_reference(reference)
        if not found:
            return [Reply(f'I found no note called "{name}". Try /search {name}')]
        if len(found) == 1:
            return await self._run(ctx, found[0], tool, arguments)
        shown = found[:CHOICES_SHOWN]
        action_id = await ctx.records.buttons.add(
            ctx.person.id,
            "pick",
            {"tool": tool, "arguments": arguments, "paths": [e.path for e in shown]},
            ctx.now,
        )
        buttons = tuple(
            Button(f"{e.title} ({e.path})", "pick", f"{action_id}.{i}") for i, e in enumerate(shown)
        )
        return [Reply(f'Several notes match "{name}". Which one?', buttons=buttons)]

    async def _run(
        self, ctx: ToolContext, entry: Entry, tool: str, arguments: dict[str, Any]
    ) -> list[Reply]:
        arguments = dict(arguments)
        add_tags = arguments.pop("add_tags", None)
        if add_tags is not None:
            tags = [str(t) for t in entry.tags]
            tags += [t for t in add_tags if t not in tags]
            if tags == [str(t) for t in entry.tags]:
                return [Reply(f"{entry.path} already has those tags.")]
            arguments["set_fields"] = [{"name": "tags", "value": ", ".join(tags)}]
        return await self.call(ctx, tool, path=entry.path, **arguments)

    async def _leading_note(self, ctx: ToolContext, rest: str) -> tuple[str, str] | None:
        """Split `NOTE TEXT`: a quoted name or link, else the longest run of leading
        words that names a note exactly, else the longest run that is part of a note's
        title ("Grocery list" for "Grocery list for Saturday"), which `_on_note` then
        finds the same way (a numbered choice when several fit)."""
        quoted = split_leading_reference(rest)
        if quoted is not None:
            return quoted
        words = rest.split()
        for exact in (True, False):
            for count in range(len(words) - 1, 0, -1):
                if not any(c.isalnum() for c in words[count - 1]):
                    continue  # names are matched without punctuation: "list -" is "list"
                reference = " ".join(words[:count])
                if not exact and len(reference) < PART_OF_TITLE_MIN:
                    break
                try:
                    named = await notes_named(ctx.store, reference, exact=exact)
                except StorageError:
                    continue  # not a usable path; a shorter run of words may be
                if named:
                    return reference, " ".join(words[count:])
        return None


# `Note#Heading`: a `#` between two non-spaces ("C# tips" is a name, not a heading).
_HEADING_MARK = re.compile(r"(?<=\S)#(?=\S)")


def heading_part(text: str) -> tuple[str, str | None]:
    """`Note#Heading`, `"My note"#Heading` or `[[Note#Heading|shown]]` → (the note, the
    heading); (text, None) when it names no heading."""
    text = text.strip()
    link = wikilinks.read(text)
    if link is not None:
        return (wikilinks.wikilink(link.target), link.heading) if link.heading else (text, None)
    match = _HEADING_MARK.search(text)
    if match is None:
        return text, None
    return text[: match.start()], text[match.end() :].strip() or None


class NoteChoice(ButtonHandler):
    """The `pick` buttons: the numbered choice between same-named notes."""

    actions = ("pick",)

    def __init__(self, notes: NoteCommands) -> None:
        self.notes = notes

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        return await self.notes.pick(ctx, value)
