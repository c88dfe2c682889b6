"""The person a thought is about, told without a model, and whether they already have a
page: "Met Sarah Kim …" or "[person] Sarah Kim - …" names a person in full; "Talked to
[[Sarah Kim]] …" links to her; "Sarah's birthday …" means the one person page whose
first name is Sarah, if there is exactly one. The people folder holds one page per
person: a thought about someone with a page links to it instead of starting another."""

from __future__ import annotations

import re

from storage import Entry, Store
from storage.text import wikilinks
from storage.text.person_names import Mention, named
from storage.vault import PEOPLE

PersonMention = Mention[Entry]


async def person_page(store: Store, name: str) -> Entry | None:
    """The people note called `name` (title, file name or alias), if there is one."""
    found = [e for e in await store.find(name, exact=True) if e.category == PEOPLE]
    return found[0] if len(found) == 1 else None


def _page(name: str, said: str, page: Entry | None) -> PersonMention:
    return Mention(said, (page,) if page is not None else (), name)


async def mentioned(store: Store, text: str) -> PersonMention | None:
    """The person `text` is about: a linked person page, a full name after a people cue,
    or a first name that only one person page has."""
    candidates = named(text)  # the text is read once; the pages are looked up in turn
    for target, said in candidates.links:
        page = await person_page(store, target)
        if page is not None:
            return _page(target, said, page)
    full = candidates.full_name  # "Talked to [[Sarah Kim]]" too
    if full is not None:
        return _page(full, full, await person_page(store, full))
    for word in candidates.first_names:
        page = await _only_page_with_first_name(store, word)
        if page is not None:
            return _page(page.title, word, page)
    return None


async def _only_page_with_first_name(store: Store, first: str) -> Entry | None:
    pages = {
        e.path: e
        for e in await store.find(first, limit=50)
        if e.category == PEOPLE and e.title.split()[:1] == [first]
    }
    return next(iter(pages.values())) if len(pages) == 1 else None


def _names_of(page: Entry) -> set[str]:
    stem = page.path.rsplit("/", 1)[-1].removesuffix(".md")
    aliases = page.fields.get("aliases")
    aliases = [aliases] if isinstance(aliases, str) else aliases or []
    return {str(name).casefold() for name in (page.title, stem, *aliases)}


def linked(text: str, page: Entry, said: str) -> str:
    """`text` with the first place that names the person (as `said`) made a link to
    their page ("Met [[Sarah Kim]] again", "[[Sarah Kim|Sarah]]'s birthday"); a line
    saying who it is about is added when the text never names them so. A text that
    links to the page already (by any name it goes by) is left as it is."""
    linked_to = {target.casefold() for target in wikilinks.targets(text)}
    stem = page.path.rsplit("/", 1)[-1].removesuffix(".md")
    if wikilinks.read(said) is not None or _names_of(page) & linked_to:
        return text
    if not wikilinks.linkable(stem):
        return text  # a file name no wikilink can hold (`C# club.md`): left unlinked
    link = wikilinks.link_to(page.path, said)
    at = re.search(rf"(?<![\w\[]){re.escape(said)}(?!\w)", text)
    if at is None:
        return f"{text}\n\nAbout {wikilinks.link_to(page.path, page.title)}."
    return text[: at.start()] + link + text[at.end() :]
