"""The person a thought is about, told without a model, and whether they already have a
page: "Met Sarah Kim …" or "[person] Sarah Kim - …" names a person in full; "Talked to
[[Sarah Kim]] …" links to her; "Sarah's birthday …" means the one person page whose
first name is Sarah, if there is exactly one. The people folder holds one page per
person: a thought about someone with a page links to it instead of starting another."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.tools import linked_names, unlinked
from storage import Entry, Store

PEOPLE = "people"
_NAME_WORD = r"[^\W\d_][\w\u2019'.-]*"
# Words that say the thought is about meeting or talking to someone.
_CUE = re.compile(
    r"(?<!\w)(?:met with|meeting|met|talked to|talked with|spoke to|spoke with|called|"
    r"call with|lunch with|coffee with|dinner with|catch up with|caught up with|"
    r"follow up with|followed up with)\s+"
    rf"(?P<words>{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}})",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"(?<!\w)(?P<name>" + _NAME_WORD + r")['\u2019]s?(?!\w)")


@dataclass(frozen=True, slots=True)
class Mention:
    """A person a thought names: how the text calls them, and their page if it exists."""

    name: str
    said: str
    page: Entry | None


def full_name_after_cue(text: str) -> str | None:
    """ "Met Sarah Kim at the meetup" → "Sarah Kim": two to four capitalised words
    right after a people cue; None for a first name alone or none at all."""
    for match in _CUE.finditer(text):
        words: list[str] = []
        for word in match.group("words").split():
            if not word[:1].isupper():
                break
            words.append(word.rstrip(".,"))
            if word[-1:] in ".,":
                break
        if len(words) >= 2:
            return " ".join(words)
    return None


async def person_page(store: Store, name: str) -> Entry | None:
    """The people note called `name` (title, file name or alias), if there is one."""
    found = [e for e in await store.find(name, exact=True) if e.category == PEOPLE]
    return found[0] if len(found) == 1 else None


async def mentioned(store: Store, text: str) -> Mention | None:
    """The person `text` is about: a linked person page, a full name after a people cue,
    or a first name that only one person page has."""
    for name in linked_names(text):
        page = await person_page(store, name)
        if page is not None:
            return Mention(name, f"[[{name}]]", page)
    full = full_name_after_cue(unlinked(text))  # "Talked to [[Sarah Kim]]" names her too
    if full is not None:
        return Mention(full, full, await person_page(store, full))
    for word in _first_names(text):
        page = await _only_page_with_first_name(store, word)
        if page is not None:
            return Mention(page.title, word, page)
    return None


def _first_names(text: str) -> list[str]:
    """Capitalised words that may be a first name: "Sarah's", or one after a cue."""
    names = [m.group("name") for m in _POSSESSIVE.finditer(text)]
    names += [m.group("words").split()[0] for m in _CUE.finditer(text)]
    return [n for n in dict.fromkeys(names) if n[:1].isupper()]


async def _only_page_with_first_name(store: Store, first: str) -> Entry | None:
    pages = {
        e.path: e
        for e in await store.find(first, limit=50)
        if e.category == PEOPLE and e.title.split()[:1] == [first]
    }
    return next(iter(pages.values())) if len(pages) == 1 else None


def linked(text: str, page: Entry, said: str) -> str:
    """`text` with the first place that names the person (as `said`) made a link to
    their page ("Met [[Sarah Kim]] again", "[[Sarah Kim|Sarah]]'s birthday"); a line
    saying who it is about is added when the text never names them so."""
    target = page.title
    if target in linked_names(text):
        return text
    link = f"[[{target}]]" if said == target else f"[[{target}|{said}]]"
    at = re.search(rf"(?<![\w\[]){re.escape(said)}(?!\w)", text)
    if at is None:
        return f"{text}\n\nAbout [[{target}]]."
    return text[: at.start()] + link + text[at.end() :]
