"""The notes an answer stands on: what a turn's reading tools showed, how a hit says
why it matched, and the "Sources" a reply ends with, one Open button per note.

A source button carries a short id; the note's path, title and the passage that
matched are kept with it (`records.buttons.add`), since Telegram's callback
data holds 64 bytes. The press (bot.buttons.sources) shows the note as it is then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from bot.events import Button, Reply
from bot.tools.context import ReadNote
from bot.tools.registry import ToolContext
from bot.tools.runner import Outcome
from bot.tools.team_notes import source_of
from storage import Backlink, Entry, SearchHit
from storage.text import wikilinks

# The Button.action of a source button ("open" is a digest item's, which shipped first).
OPEN_ACTION = "source"
OPEN_KIND = "open_source"  # the kind of its stored button action
MAX_SOURCES = 5  # an answer that cites nothing lists at most this many of what it read
LABEL_CHARS = 40
# How a person reads which side of the search found a note.
WHY = {"words": "words", "meaning": "meaning", "both": "words + meaning"}


def why(matched: str) -> str:
    """ "words", "meaning" or "words + meaning"; "" when the note was not searched for."""
    return WHY.get(matched, "")


def hit_line(hit: SearchHit) -> str:
    """One search hit as a person reads it: title, path, why it matched, and under it
    the passage that matched with the query's words marked."""
    team = source_of(hit)
    head = f"- {f'[{team}] ' if team else ''}{hit.title} ({hit.path})"
    reason = why(hit.matched)
    passage = " ".join((hit.passage or hit.snippet).split())
    return head + (f" · {reason}" if reason else "") + (f"\n    {passage}" if passage else "")


def backlink_lines(links: Sequence[Backlink]) -> list[str]:
    """Backlinks as a person reads them: typed ones first, grouped by type
    (`- works_at ← [[Sarah Kim]] (people/Sarah Kim.md)`), then the plain ones, newest
    first within each; a note linking with two types is listed under both."""
    typed = sorted(
        ((relation, n, link) for n, link in enumerate(links) for relation in link.relations),
        key=lambda t: (t[0].casefold(), t[1]),
    )
    lines = [
        f"- {relation} ← {wikilinks.wikilink(link.title)} ({link.path})"
        for relation, _, link in typed
    ]
    return lines + [f"- {link.title} ({link.path})" for link in links if not link.relations]


def read_hit(hit: SearchHit) -> ReadNote:
    return ReadNote(hit.path, hit.title, hit.passage or hit.snippet, hit.matched)


def read_entry(entry: Entry, path: str | None = None) -> ReadNote:
    """A note a tool opened or listed (`path`: as the result named it, for a team's)."""
    raw = entry.fields.get("aliases") or ()
    aliases = (raw,) if isinstance(raw, str) else raw if isinstance(raw, list) else ()
    return ReadNote(path or entry.path, entry.title, aliases=tuple(str(a) for a in aliases))


def notes_read(outcomes: Iterable[Outcome]) -> list[ReadNote]:
    """Every note the turn's reading tools showed, once each, in the order first shown
    (a search's best hit first); a note searched and then opened keeps its passage."""
    seen: dict[str, ReadNote] = {}
    for outcome in outcomes:
        if not outcome.ok or outcome.writes or outcome.result is None:
            continue
        for note in outcome.result.read:
            known = seen.get(note.path)
            if known is None:
                seen[note.path] = note
            elif not known.passage and note.passage:
                seen[note.path] = replace(note, aliases=known.aliases or note.aliases)
            elif note.aliases and not known.aliases:
                seen[note.path] = replace(known, aliases=note.aliases)
    return list(seen.values())


def source_line(note: ReadNote) -> str:
    reason = why(note.matched)
    head = f"- {note.title} ({note.path})" + (f" · {reason}" if reason else "")
    passage = " ".join(note.passage.split()) if note.matched else ""
    return head + (f"\n    {passage}" if passage else "")


def _label(title: str) -> str:
    title = " ".join(title.split()) or "note"
    return title if len(title) <= LABEL_CHARS else title[: LABEL_CHARS - 1] + "…"


async def source_buttons(ctx: ToolContext, notes: Sequence[ReadNote]) -> tuple[Button, ...]:
    """One Open button per note, for this person and this conversation's vault."""
    buttons = []
    for note in notes:
        payload: dict[str, Any] = {
            "path": note.path,
            "title": note.title,
            "passage": note.passage if note.matched else "",
            "matched": note.matched,
        }
        action_id = await ctx.records.buttons.add(
            ctx.person.id, OPEN_KIND, payload, ctx.now, vault_id=ctx.store.vault_id
        )
        buttons.append(Button(_label(note.title), OPEN_ACTION, action_id))
    return tuple(buttons)


async def with_sources(ctx: ToolContext, reply: Reply, notes: Sequence[ReadNote]) -> Reply:
    """`reply` ending with its sources: a "Sources:" list of the notes it does not
    already name by path, and an Open button for each of them."""
    if not notes:
        return reply
    unnamed = [n for n in notes if f"({n.path})" not in reply.text]
    text = reply.text.rstrip()
    if unnamed:
        text += "\n\nSources:\n" + "\n".join(source_line(n) for n in unnamed)
    buttons = await source_buttons(ctx, notes)
    return replace(reply, text=text, buttons=(*reply.buttons, *buttons))
