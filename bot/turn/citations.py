"""Which notes a model's answer cites, kept to the notes the turn read.

The model is asked to name the notes it used as `[[Title]]` (or by path). A citation
counts only when it names a note a reading tool showed in this turn (by path, title,
file name or alias): a `[[name]]` of any other note (one the model made up, or one it
only saw listed as recent) is dropped from the answer, and no source ever names a
note the turn did not read. An answer that cites nothing it
read, after reading notes, lists the best of what it read instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.events import Reply
from bot.tools import MAX_SOURCES, Outcome, ReadNote, ToolContext, notes_read, with_sources
from storage.index import name_key, path_key
from storage.text import wikilinks

# A vault path as tools show them: `ideas/tea.md`, a team note's `team:ideas/tea.md`.
_PATH = re.compile(r"(?<![\w/.:-])(?:[a-z0-9][a-z0-9-]*:)?[\w.-]+(?:/[\w.-]+)*\.md\b")
# An invented citation goes with what only served it: "(see [[Nope]])", ", [[Nope]]".
_WRAPPED = r"[ \t]*\((?:(?:see|source|sources|from|in)\b:?[ \t]*)?{link}[ \t]*\)"
_LISTED = r"[ \t]*(?:[,;]|\band\b)?[ \t]*{link}"
_LEADING = r"(?m)^{link}[ \t]*(?:(?:[,;]|\band\b)[ \t]*)?"


def _keys(note: ReadNote) -> set[str]:
    bare = note.path.split(":", 1)[1] if re.match(r"^[a-z0-9-]+:", note.path) else note.path
    stem = bare.rsplit("/", 1)[-1].removesuffix(".md")
    names = {name_key(note.title), name_key(stem), *(name_key(a) for a in note.aliases)}
    return {k for k in names if k} | {"path:" + path_key(bare), "path:" + path_key(note.path)}


def _match(name: str, read: Sequence[ReadNote]) -> ReadNote | None:
    wanted = {name_key(name), "path:" + path_key(name)}
    return next((note for note in read if wanted & _keys(note)), None)


async def _by_alias(ctx: ToolContext, name: str, read: Sequence[ReadNote]) -> ReadNote | None:
    """A note the turn read that `name` calls by a name the result did not show (an
    alias of a search hit): the vault says which note that is."""
    paths = {note.path: note for note in read}
    for entry in await ctx.store.find(name, limit=3, exact=True):
        if entry.path in paths:
            return paths[entry.path]
    return None


def _without(text: str, link: str) -> str:
    """`text` without the citation `link`, and the brackets or comma it came with."""
    escaped = re.escape(link)
    text = re.sub(_WRAPPED.format(link=escaped), "", text, flags=re.IGNORECASE)
    text = re.sub(_LEADING.format(link=escaped), "", text)
    return re.sub(_LISTED.format(link=escaped), "", text)


async def cite(
    ctx: ToolContext, answer: str, read: Sequence[ReadNote]
) -> tuple[str, list[ReadNote]]:
    """The answer without citations of notes the turn did not read, and the read notes
    it cites, in the order first cited."""
    cited: list[ReadNote] = []
    invented: set[str] = set()
    # (where, the name it cites, the [[link]] as written; "" for a bare path)
    found = [
        (link.start, link.target, answer[link.start : link.end])
        for link in wikilinks.find(answer)
        if link.target  # `[[#Heading]]` cites no note
    ]
    found += [(match.start(), match.group(0), "") for match in _PATH.finditer(answer)]
    for _, name, link in sorted(found, key=lambda f: f[0]):
        note = _match(name, read) or await _by_alias(ctx, name, read)
        if note is None:
            # A [[link]] is a citation: one to a note not read goes. A bare path may be
            # the note the context listed as recent: it stays in the words, no source.
            if link:
                invented.add(link)
        elif note not in cited:
            cited.append(note)
    if not invented:
        return answer, cited
    for link in invented:
        answer = _without(answer, link)
    return answer.strip(), cited


async def with_citations(
    ctx: ToolContext, done: Sequence[Outcome], replies: Sequence[Reply]
) -> list[Reply]:
    """`replies` whose last one (the answer) ends with the notes it stands on: those it
    cites that the turn read, else the best hits of its searches."""
    read = notes_read(done)
    if not read or not replies:
        return list(replies)
    answer = replies[-1]
    text, cited = await cite(ctx, answer.text, read)
    # Nothing cited: the best hits of the turn's searches. Notes only opened or listed
    # are not assumed to be what the words stand on (a weather answer after a look at
    # the trip note).
    sources = cited or [note for note in read if note.matched][:MAX_SOURCES]
    return [*replies[:-1], await with_sources(ctx, replace(answer, text=text), sources)]
