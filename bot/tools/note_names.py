"""How notes are named: a title made from a person's words, and the note a person
means by a path, a title, an alias or a `[[wikilink]]`, quoted or not, with spaces
or not."""

from __future__ import annotations

import re
from collections.abc import Sequence

from storage import Entry, EntryNotFound, Store, UnsafePath
from storage.text import urls, wikilinks
from storage.vault import ADMIN, IDEAS, INBOX, PEOPLE, PROJECTS, check_relpath

# The words people and models use for the default categories ("todo" for admin).
CATEGORY_WORDS = {
    "person": PEOPLE,
    "project": PROJECTS,
    "idea": IDEAS,
    "todo": ADMIN,
    "task": ADMIN,
    "tasks": ADMIN,
    "errand": ADMIN,
    "note": INBOX,
    "notes": INBOX,
}
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}  # noqa: RUF001


def clean_reference(text: str) -> str:
    """The name inside quotes or a `[[wikilink|label]]`, without surrounding spaces."""
    text = text.strip()
    link = wikilinks.read(text)
    if link:
        return link.target
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def split_leading_reference(text: str) -> tuple[str, str] | None:
    """`"My note" rest` or `[[My note]] rest` → (`My note`, `rest`); None when the text
    does not start with a quoted name or a wikilink."""
    text = text.strip()
    link = wikilinks.leading(text)
    if link and link.target:
        return link.target, text[link.end :].strip()
    closing = _QUOTES.get(text[:1])
    if closing is None:
        return None
    end = text.find(closing, 1)
    if end < 0:
        return None
    return text[1:end].strip(), text[end + 1 :].strip()


async def notes_named(store: Store, reference: str, *, exact: bool = False) -> list[Entry]:
    """The notes `reference` may mean: the note at that path (when it looks like one),
    else the notes with that title, file name or alias (with `exact` False, also those
    whose title contains it). UnsafePath for a path that may not be used (`..`, `/x`)."""
    name = clean_reference(reference)
    if not name:
        return []
    if "/" in name or "\\" in name or name.lower().endswith(".md"):
        check_relpath(name)  # a path trick is refused, not looked up as a title
        for path in (name, f"{name}.md"):
            try:
                return [await store.read(path)]
            except (EntryNotFound, UnsafePath):
                continue
    # A bare name may be the title of notes in several folders: all of them count.
    return await store.find(name, exact=exact)


# What is left of a link's brackets once its address is out: `label ()`, `[label]()`.
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|<\s*>")


def title_from(text: str, limit: int = 60, *, as_written: bool = False) -> str:
    """A title from text: its first sentence or line, cut at a word near `limit`, its
    first letter a capital (not in a name written like `iPhone`, nor `as_written`: a
    file's name is kept as its owner wrote it). Links are left out
    (a note that is only a link is named by its address, until its page's title is
    read: bot.enrich)."""
    spans = list(urls.link_spans(text))
    words = text
    for start, end in reversed(spans):
        words = words[:start] + " " * (end - start) + words[end:]
    words = _EMPTY_BRACKETS.sub(" ", words).strip(" \t,;:-\u2013\u2014")
    if not words.strip() and spans:
        start, end = spans[0]
        return _cut(text[start:end].split("://", 1)[-1].rstrip("/"), limit)  # as written
    first = re.split(r"(?<=[.!?])\s|\n", words.strip(), maxsplit=1)[0].strip() or "Untitled"
    first = " ".join(first.split())
    head, space, rest = first.partition(" ")
    capital = head[:1].upper()
    # "iPhone", "eBay", "macOS": a capital inside the word says it is written so.
    if not as_written and len(capital) == 1 and not any(c.isupper() for c in head[1:]):
        first = capital + head[1:] + space + rest
    return _cut(first, limit)


def _cut(first: str, limit: int) -> str:
    """`first` cut at a word near `limit` (marked `…`), else without a closing full stop."""
    if len(first) <= limit:
        return first.rstrip(".")
    return first[:limit].rsplit(" ", 1)[0] + "…"


def category_named(word: str, categories: Sequence[str]) -> str | None:
    """The category `word` names ("project", "Projects", "todo"), if it is one of
    `categories`."""
    word = word.strip().lower()
    category = CATEGORY_WORDS.get(word, word)
    return category if category in categories else None
