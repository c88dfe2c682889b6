"""The weekly review's "Unlinked mentions": notes of the week that name another note
without linking it, each offered a Link button (bot.buttons.unlinked_mentions) that
makes the first mention a wikilink. Which notes and names count, and how they are found
fast, is storage.index.mention_search'; this module says how a line reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from storage import Store
from storage.index import UnlinkedMention
from storage.index import unlinked_mentions as find_mentions

MENTIONS = "Unlinked mentions"
LIMIT = 5


@dataclass(frozen=True, slots=True)
class LinkOffer:
    """What a Link button writes into the item's note: its first mention of `name` made
    a link to the note `target`, if the note still has `content_hash`."""

    target: str
    name: str
    content_hash: str


@dataclass(frozen=True, slots=True)
class MentionLine:
    text: str
    path: str
    link: LinkOffer


def _line(mention: UnlinkedMention) -> MentionLine:
    shown = f"“{mention.written}”" if mention.written != mention.target_title else ""
    text = f"{mention.title} mentions {mention.target_title}" + (f" as {shown}" if shown else "")
    offer = LinkOffer(mention.target, mention.name, mention.content_hash)
    return MentionLine(text + " without a link", mention.path, offer)


async def unlinked_mentions(store: Store, *, since: datetime, until: datetime) -> list[MentionLine]:
    """Up to LIMIT notes changed in [since, until) naming another note unlinked, newest
    first, as digest lines with what their Link button would write."""
    async with store.database.engine.connect() as conn:
        found = await find_mentions(
            conn,
            store.index.vault_id,
            since=since,
            until=until,
            categories=store.vault.categories,
            limit=LIMIT,
        )
    return [_line(m) for m in found]
