"""People and projects keep a timeline: a capture that names someone with a note adds
`- 2026-11-25 [[budget-idea|Budget idea]]` under `## Timeline` in that note, so
`/get Sarah Kim` shows what happened with her, newest first.

Choices a person would notice:
- It runs after the capture's reply, which never waits for it; what was added comes as
  a second message with an Undo button. Undo takes back the timeline lines only: the
  captured note stays (it has its own Undo, and the person asked for it; the lines
  were the bot's idea).
- All the lines of one capture are one commit, by the person, naming the event.
- Only the person's own message is read for names: never a fetched page, a photo's or
  a document's text, an imported note or a mail. That text is data someone else wrote,
  and must not write into a person's note. So this is an engine rule on the person's
  own words, not a model's proposal, and it runs at once (the rule that holds back a
  model's changes after it read notes is about what a model passes on).
- A name several notes share ("Sarah", two Sarahs) asks, one message with a button per
  note, rather than guess; nothing is written for it until a press.
- Lines are kept newest first (a line goes above the older ones), so the note reads
  the same way in Obsidian as in `/get`.
- A line already there (the same day and note) is not added twice.
- The job lives in this process only: a stop waits for it (a few seconds at most), a
  crash between the reply and the line loses the line (the capture itself is kept).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Collection, Sequence
from datetime import date

from bot.buttons import ButtonHandler, pressed
from bot.connect.named import Named, Names, NoteMention
from bot.enrich import Background
from bot.events import Button, Deliver, Reply
from bot.tools import ToolContext, undo_button
from storage import Change, Entry, NothingToChange, StorageError, Store
from storage.text import wikilinks
from storage.vault import NAMED

log = logging.getLogger(__name__)

HEADING = "## Timeline"
PICK_ACTION = "timeline_pick"  # Button.action of "which Sarah?"
PICK_KIND = "timeline"
START_AFTER = 0.2  # seconds: the capture's own reply goes out first
CLOSE_GRACE = 5.0  # seconds a stop waits for the lines under way
# Where nobody waits for a message: the lines are written, nothing is said.
UNTOLD = frozenset({"mcp", "api", "email"})
MOST_QUESTIONS = 3  # ambiguous names asked about per capture
MOST_CHOICES = 6  # notes offered for one name
_DATED = re.compile(r"^\s*[-*+]\s+(\d{4}-\d{2}-\d{2})\b")
_COMMAND = re.compile(r"^/\S+\s*")


class KnownNames:
    """The names of each vault's people and projects, built once and kept while they
    stay the same (building them for 3,500 notes takes a few hundred ms; checking
    whether they changed, one small query)."""

    def __init__(self, *, first_names: bool = True, vaults: int = 64) -> None:
        self.first_names = first_names
        self._vaults = vaults
        self._built: OrderedDict[int, tuple[str, Names]] = OrderedDict()

    async def of(self, store: Store, categories: Sequence[str]) -> Names:
        wanted = [c for c in NAMED if c in categories]
        mark = await store.index.names_mark()
        built = self._built.get(store.vault_id)
        if built is not None and built[0] == mark:
            self._built.move_to_end(store.vault_id)
            return built[1]
        rows = await store.index.names_in(wanted)
        names = Names(
            (Named(p, t, c, tuple(a)) for p, t, c, a in rows), first_names=self.first_names
        )
        self._built[store.vault_id] = (mark, names)
        while len(self._built) > self._vaults:
            self._built.popitem(last=False)
        return names

    async def mentions_in(
        self, store: Store, text: str, categories: Sequence[str], leave_out: Collection[str] = ()
    ) -> list[NoteMention]:
        """The people and projects of `store`'s vault that `text` names (see
        bot.connect.named); a leading `/command` is not a name."""
        names = await self.of(store, categories)
        return names.find(_COMMAND.sub("", text, count=1), leave_out=leave_out)


def timeline_line(day: date, note: Entry) -> str:
    """`- 2026-11-25 [[budget-idea|Budget idea]]`: the day and a link to the note."""
    return f"- {day.isoformat()} {wikilinks.link_to(note.path, note.title)}"


def with_timeline_line(body: str, line: str) -> str | None:
    """`body` with `line` in its `## Timeline` section (made at the end when missing),
    above the lines of its day and older ones; None when the line is there already."""
    lines = body.split("\n")
    at = next((i for i, old in enumerate(lines) if old.strip() == HEADING), None)
    if at is None:
        text = body.rstrip("\n")
        return f"{text}\n\n{HEADING}\n{line}\n" if text else f"{HEADING}\n{line}\n"
    end = at + 1
    while end < len(lines) and not re.match(r"#{1,2} ", lines[end]):
        end += 1
    section = lines[at + 1 : end]
    if any(old.strip() == line for old in section):
        return None
    day = line[2:12]
    where = at + 1
    while where < end and not lines[where].strip():
        where += 1  # a blank line under the heading stays there
    for i in range(where, end):
        dated = _DATED.match(lines[i])
        if dated is not None and dated.group(1) <= day:
            where = i
            break
    else:
        last = end
        while last > at + 1 and not lines[last - 1].strip():
            last -= 1
        where = last
    return "\n".join([*lines[:where], line, *lines[where:]])


async def add_lines(ctx: ToolContext, paths: Sequence[str], line: str) -> Change | None:
    """`line` on the timeline of every note in `paths`, as one commit by the person
    (None when every one has it already)."""
    edits = {path: lambda entry: with_timeline_line(entry.body, line) for path in paths}
    try:
        return await ctx.store.update_bodies(
            edits, operation="timeline", author=ctx.author, source=dict(ctx.source)
        )
    except NothingToChange:
        return None


def _titles(notes: Sequence[Named]) -> str:
    names = [n.title for n in notes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Timeline:
    """The timeline rule after a capture (see the module doc); `follow` is its door."""

    def __init__(self, *, first_names: bool = True, deliver: Deliver | None = None) -> None:
        self.names = KnownNames(first_names=first_names)
        self.deliver = deliver  # "Added to the timeline of Sarah Kim."; None: nobody is told
        self.start_after = START_AFTER
        self._jobs = Background()

    def follow(self, ctx: ToolContext, text: str) -> None:
        """After the reply to a message that filed a note: the lines on the timelines
        its words name, and what to say about them (nothing when it names nobody)."""
        if not ctx.filed or not text.strip():
            return
        self._jobs.start(self._run(ctx, text), f"timeline-{ctx.event_key}")

    async def wait_idle(self) -> None:
        """Until every timeline job started so far has finished (tests, a drain)."""
        await self._jobs.wait_idle()

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Let the jobs under way finish (they live in this process only), for at most
        `grace` seconds; then stop the rest."""
        try:
            async with asyncio.timeout(grace):
                await self.wait_idle()
        except TimeoutError:
            await self._jobs.cancel()

    async def _run(self, ctx: ToolContext, text: str) -> None:
        await asyncio.sleep(self.start_after)
        try:
            replies = await self.note(ctx, text)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("timeline lines of %s failed", ctx.event_key)
            replies = [Reply(f"Couldn't add this to the timelines it names: {exc}.")]
        for reply in replies:
            if self.deliver is None or ctx.conversation.platform in UNTOLD:
                return
            try:
                await self.deliver(ctx.conversation, reply)
            except Exception as exc:
                log.warning("could not tell %s about timelines: %s", ctx.conversation.key, exc)

    async def note(self, ctx: ToolContext, text: str) -> list[Reply]:
        """Add the lines `text` names to the timelines of the first note this event
        filed; what to tell the person (a line with Undo, a question per ambiguous name)."""
        if not ctx.filed:
            return []
        mentions = await self.names.mentions_in(
            ctx.store, text, ctx.settings.categories, {e.path for e in ctx.filed}
        )
        if not mentions:
            return []
        line = timeline_line(ctx.now.astimezone(ctx.vault_zone).date(), ctx.filed[0])
        clear = [m.notes[0] for m in mentions if not m.ambiguous]
        replies: list[Reply] = []
        if clear:
            change = await add_lines(ctx, [n.path for n in clear], line)
            if change is not None:
                said = f"Added to the timeline of {_titles(clear)}."
                replies.append(
                    Reply(said, (await undo_button(ctx, change.commit, change.paths[0], said),))
                )
        for mention in [m for m in mentions if m.ambiguous][:MOST_QUESTIONS]:
            replies.append(await self._ask(ctx, mention, line))
        return replies

    @staticmethod
    async def _ask(ctx: ToolContext, mention: NoteMention, line: str) -> Reply:
        notes = mention.notes[:MOST_CHOICES]
        payload = {"line": line, "paths": [n.path for n in notes], "said": mention.said}
        action = await ctx.records.buttons.add(
            ctx.person.id, PICK_KIND, payload, ctx.now, vault_id=ctx.store.vault_id
        )
        buttons = [Button(n.title, PICK_ACTION, f"{action}.{i}") for i, n in enumerate(notes)]
        buttons.append(Button("None of them", PICK_ACTION, f"{action}.none"))
        return Reply(
            f"“{mention.said}” could be {_titles(notes)}. Whose timeline is this for?",
            tuple(buttons),
        )


class TimelineChoice(ButtonHandler):
    """The buttons of "whose timeline?": the line goes on the note picked, with Undo."""

    actions = (PICK_ACTION,)

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        action_id, _, pick = value.rpartition(".")
        stored, scoped = await pressed(
            ctx,
            action_id,
            PICK_KIND,
            members=True,
            unknown="That choice is unknown; nothing changed.",
            not_yours="Only the person who captured this can choose.",
        )
        paths = [str(p) for p in stored.payload["paths"]]
        if pick != "none" and (not pick.isdigit() or int(pick) >= len(paths)):
            return [Reply("That choice is unknown; nothing changed.")]
        if await scoped.records.buttons.use(action_id, ctx.now) is None:
            return []  # chosen already
        if pick == "none":
            return [Reply("Left off every timeline.", replace=True)]
        path = paths[int(pick)]
        try:
            change = await add_lines(scoped, [path], str(stored.payload["line"]))
            title = (await scoped.store.read(path)).title
        except StorageError as exc:
            return [Reply(f"Could not add it to {path}: {exc}. Nothing changed.", replace=True)]
        if change is None:
            return [Reply(f"{title}'s timeline has it already.", replace=True)]
        said = f"Added to the timeline of {title}."
        return [
            Reply(
                said,
                (await undo_button(scoped, change.commit, change.paths[0], said),),
                replace=True,
            )
        ]
