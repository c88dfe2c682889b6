"""Related notes at capture: after a thought is filed and its reply is out, the notes of
the same vault it is most related to are named in a second message, with a Link
button that writes `[[wikilinks]]` into a "Related:" line of the new note (one commit,
with Undo). With BRAINBOT_AUTO_LINK the line is written at once, and the message says
so, with Undo.

What counts as related is decided here, on the two scores storage.index.related gives
every neighbour; the thresholds were calibrated by bench/related.py on a labelled set
of captures, chosen so that a capture unrelated to everything gets no suggestion.
Nothing is said when no note passes them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from bot.enrich import Background, where_now
from bot.events import Button, Deliver, Reply
from bot.tools import ToolContext, ToolRunner, undo_button
from storage import BOT_AUTHOR, Entry, StaleEdit
from storage.index import Neighbour
from storage.text import wikilinks

log = logging.getLogger(__name__)

SHOWN = 3  # at most this many related notes are named
# Calibrated by bench/related.py on 90 labelled captures (its module doc has how, and
# the table; none of the 40 unrelated ones got a suggestion): a neighbour is related
# when its meaning is unusually close (the cosine's z-score against random pairs of
# the vault's notes) and it shares a distinctive word, or when its words alone agree
# strongly (the only rule without vectors).
SIMILARITY_AT_LEAST = 3.0
KEYWORD_AT_LEAST = 0.25
KEYWORD_SHARED_AT_LEAST = 4  # distinctive words held in common, for the words alone
START_AFTER = 0.3  # seconds: the capture's own reply goes out first
LINK_ACTION = "link_related"  # Button.action of the Link button
LINK_KIND = "related"  # ButtonAction.kind behind it: the note and the notes to link
UNTOLD = frozenset({"mcp", "api", "email"})  # nobody there reads a second message
RELATED = "Related:"
_LINE = re.compile(r"^Related:\s*(?P<links>.*)$")


def related_enough(n: Neighbour) -> bool:
    """The calibrated rule (see the constants)."""
    if n.similarity is not None and n.similarity >= SIMILARITY_AT_LEAST and n.shared >= 1:
        return True
    return n.keyword >= KEYWORD_AT_LEAST and n.shared >= KEYWORD_SHARED_AT_LEAST


def strength(n: Neighbour) -> float:
    """How far past the thresholds a neighbour is: the order they are named in."""
    by_meaning = (n.similarity or 0.0) / SIMILARITY_AT_LEAST
    return max(by_meaning, n.keyword / KEYWORD_AT_LEAST)


def most_related(neighbours: Sequence[Neighbour], limit: int = SHOWN) -> list[Neighbour]:
    """The neighbours that pass the thresholds, the strongest first, at most `limit`."""
    passed = [n for n in neighbours if related_enough(n)]
    passed.sort(key=lambda n: (-strength(n), n.path))
    return passed[:limit]


def with_related(body: str, links: Sequence[tuple[str, str]]) -> str:
    """`body` with a last line `Related: [[a]], [[b]]` naming `links` (path, title); a
    Related line already there keeps its links and gains the new ones."""
    lines = body.rstrip().split("\n") if body.strip() else []
    have: list[str] = []
    if lines and (match := _LINE.match(lines[-1].strip())) is not None:
        have = [part.strip() for part in match["links"].split(",") if part.strip()]
        lines.pop()
        while lines and not lines[-1].strip():
            lines.pop()
    named = {t.lower() for link in have for t in wikilinks.targets(link)}
    for path, title in links:
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        if stem.lower() not in named and wikilinks.linkable(stem):
            have.append(wikilinks.link_to(path, title))
            named.add(stem.lower())
    return "\n".join([*lines, "", f"{RELATED} " + ", ".join(have)]).lstrip("\n") + "\n"


async def write_links(
    runner: ToolRunner, ctx: ToolContext, note: Entry, links: Sequence[tuple[str, str]]
) -> tuple[Entry, str, list[str]] | None:
    """Write the Related line into `note` as it is now (one commit, hash-checked, tried
    again when something wrote in between); the note, the commit and the titles linked.
    Notes gone since are left out; None when there is nothing left to link."""
    targets = []
    for path, title in links:
        found = await ctx.store.index.get(path)
        if found is not None:  # only notes of this very vault, still there
            targets.append((found.path, found.title or title))
    stale: StaleEdit | None = None
    for _ in range(3):
        body = with_related(note.body, targets)
        if not targets or body.strip() == note.body.strip():
            return None
        args = {
            "path": note.path,
            "set_fields": None,
            "remove_fields": None,
            "body": body,
            "append": None,
        }
        try:
            result = await runner.run_now(
                replace(ctx, expected_hash=note.content_hash), "update_entry", args, "related"
            )
        except StaleEdit as exc:
            stale = exc
            note = await ctx.store.read(note.path)
            continue
        updated = await ctx.store.read(result.entry_path or note.path)
        # Its category buttons (an inbox note's) still file it.
        await ctx.records.buttons.follow_note_change(
            ctx.store.vault_id, note.path, note.content_hash, updated.content_hash
        )
        assert result.commit is not None
        return updated, result.commit, [title for _, title in targets]
    assert stale is not None
    raise stale


def linked_to(titles: Sequence[str]) -> str:
    return "Linked to " + ", ".join(titles) + "."


class Related:
    """The suggestions after a capture: `after` starts them, `suggest` is the work."""

    def __init__(
        self,
        runner: ToolRunner,
        *,
        auto_link: bool,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        deliver: Deliver | None = None,
    ) -> None:
        self.runner = runner
        self.auto_link = auto_link
        self.clock = clock
        self.deliver = deliver  # "Related: A · B" [Link]; None: nobody is told
        self.start_after = START_AFTER
        self._jobs = Background()

    def after(self, ctx: ToolContext) -> None:
        """After the reply to a capture: name its related notes (or link them)."""
        if not ctx.filed or self.deliver is None or ctx.conversation.platform in UNTOLD:
            return
        self._jobs.start(self._run(ctx, ctx.filed[0]), "related")

    async def wait_idle(self) -> None:
        """Until every suggestion started so far is out (tests; a drain)."""
        await self._jobs.wait_idle()

    async def close(self) -> None:
        await self._jobs.cancel()

    async def _run(self, ctx: ToolContext, note: Entry) -> None:
        await asyncio.sleep(self.start_after)
        try:
            reply = await self.suggest(ctx, note)
            if reply is not None and self.deliver is not None:
                await self.deliver(ctx.conversation, reply)
        except asyncio.CancelledError:
            raise
        except Exception:  # the note is filed; its suggestions are extra
            log.exception("related notes of %s", note.path)

    async def suggest(self, ctx: ToolContext, note: Entry) -> Reply | None:
        """What to say about `note`'s related notes: their titles with a Link button, or
        (auto-link) that they were linked, with Undo; None when none is related."""
        ctx = replace(ctx, now=self.clock())
        found = most_related(await ctx.store.index.related(note.path))
        if not found:
            return None
        links = [(n.path, n.title) for n in found]
        if self.auto_link:
            now = await where_now(ctx.store, note.path, str(note.fields.get("id", "")))
            if now is None:
                return None
            written = await write_links(self.runner, replace(ctx, author=BOT_AUTHOR), now, links)
            if written is None:
                return None
            updated, commit, titles = written
            summary = linked_to(titles)
            return Reply(summary, (await undo_button(ctx, commit, updated.path, summary),))
        payload = {
            "path": note.path,
            "note_id": str(note.fields.get("id", "")),
            "links": [list(link) for link in links],
            "conversation": ctx.conversation.key,
        }
        action = await ctx.records.buttons.add(
            ctx.person.id, LINK_KIND, payload, ctx.now, vault_id=ctx.store.vault_id
        )
        text = f"{RELATED} " + " · ".join(n.title for n in found)
        return Reply(text, (Button("Link", LINK_ACTION, action, "primary"),))
