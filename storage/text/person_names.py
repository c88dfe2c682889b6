"""Person names in running text, and a `Mention`: where words name a note.

- A name is made of words that start with a letter and go on with letters, digits,
  apostrophes, hyphens and dots ("Sarah", "O'Brien", "Jean-Luc", "Zoë", "J.R.R."); a
  person's name as a title is one to four of them, each capitalised ("Sarah Kim",
  "Zoë O'Neill").
- A possessive is a name followed by an apostrophe (straight or typographic) and an
  `s`, or by the apostrophe alone ("Sarah's", "Sarah\u2019s", "James'"); an apostrophe
  inside a word is part of the name ("O'Brien's" is O'Brien's).
- A title about something of someone's ("Sarah's Birthday", "Tom's new job") names a
  thing, not a person.
- Before a name, a possessive or "his", "her", "their", "your", "its" make what
  follows someone else's ("her book club", "the neighbours' kitchen renovation").
- After a word of meeting ("met", "talked to", "lunch with" …) two to four
  capitalised words are a person's full name ("Met Sarah Kim at the meetup").
- Who a text may be about (`named`) is read in one pass: the notes it links to, a
  full name after a word of meeting, the capitalised first names a possessive or a
  word of meeting gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Generic, TypeVar

from storage.text import wikilinks

__all__ = [
    "NAME_WORD",
    "Mention",
    "Named",
    "cue_first_names",
    "full_name_after_cue",
    "is_person_name",
    "named",
    "possessive_names",
    "possessive_title",
    "someone_elses",
]

NAME_WORD = r"[^\W\d_][\w'\u2019.-]*"
_APOSTROPHE = "['\u2019]"
_NAME = re.compile(NAME_WORD)
_POSSESSIVE = re.compile(rf"(?<!\w)(?P<name>{NAME_WORD}){_APOSTROPHE}s?(?!\w)")
# A title whose first one to three words are someone's, then the thing of theirs.
_POSSESSIVE_TITLE = re.compile(
    rf"(?P<name>{NAME_WORD}(?:\s+{NAME_WORD}){{0,2}}){_APOSTROPHE}s?\s+\w", re.IGNORECASE
)
_SOMEONE_ELSES = re.compile(
    rf"(?:\w{_APOSTROPHE}s?|\b(?:his|her|their|your|its))\s+$", re.IGNORECASE
)
# Words that say the thought is about meeting or talking to someone.
_CUE = re.compile(
    r"(?<!\w)(?:met with|meeting|met|talked to|talked with|spoke to|spoke with|called|"
    r"call with|lunch with|coffee with|dinner with|catch up with|caught up with|"
    r"follow up with|followed up with)\s+"
    rf"(?P<words>{NAME_WORD}(?:\s+{NAME_WORD}){{0,3}})",
    re.IGNORECASE,
)
LONGEST_PERSON_NAME = 4  # words


def is_person_name(text: str) -> bool:
    """Whether `text` is a person's name as a title: one to four capitalised words,
    one space apart ("Sarah Kim", "Jean-Luc Picard", "Zoë O'Neill")."""
    words = text.split(" ")
    return 0 < len(words) <= LONGEST_PERSON_NAME and all(
        _NAME.fullmatch(word) is not None and word[0].isupper() for word in words
    )


def possessive_names(text: str) -> list[str]:
    """The names written as possessives in `text`, in order ("Sarah's birthday" →
    ["Sarah"]); capitalised or not, as written."""
    return [match["name"] for match in _POSSESSIVE.finditer(text)]


def possessive_title(title: str) -> str | None:
    """The name whose thing `title` is about ("Sarah's Birthday" → "Sarah", "Mary
    Jane's party" → "Mary Jane"), or None when it is not such a title."""
    match = _POSSESSIVE_TITLE.match(title.strip())
    return None if match is None else match["name"]


def someone_elses(before: str) -> bool:
    """Whether the words just before a name (`before` ends where it starts) make it
    someone else's: "her ", "their ", "the neighbours' ", "Sarah's "."""
    return _SOMEONE_ELSES.search(before) is not None


def full_name_after_cue(text: str) -> str | None:
    """ "Met Sarah Kim at the meetup" → "Sarah Kim": two to four capitalised words
    right after a word of meeting; None for a first name alone or none at all."""
    for match in _CUE.finditer(text):
        words: list[str] = []
        for word in match["words"].split():
            if not word[:1].isupper():
                break
            words.append(word.rstrip("."))
            if word.endswith("."):  # the sentence ends here
                break
        if len(words) >= 2:
            return " ".join(words)
    return None


def cue_first_names(text: str) -> list[str]:
    """The first word after each word of meeting ("called Sarah about it" → ["Sarah"])."""
    return [match["words"].split()[0] for match in _CUE.finditer(text)]


@dataclass(frozen=True, slots=True)
class Named:
    """Who a text may be about, each kind in the order written: the notes it links to
    (each target with its link as written), a full name after a word of meeting (its
    links read as their labels: "Talked to [[Sarah Kim]]"), and the capitalised first
    names a possessive or a word of meeting gives ("Sarah's birthday")."""

    links: tuple[tuple[str, str], ...]
    full_name: str | None
    first_names: tuple[str, ...]


def named(text: str) -> Named:
    """Everything in `text` that may name a person (see `Named`), read at once, so the
    caller looks the candidates up in the order it believes them."""
    unlinked, found = wikilinks.unlinked_and_links(text)
    links = tuple((link.target, text[link.start : link.end]) for link in found if link.target)
    firsts = [*possessive_names(text), *cue_first_names(text)]
    return Named(
        links,
        full_name_after_cue(unlinked),
        tuple(name for name in dict.fromkeys(firsts) if name[:1].isupper()),
    )


Note = TypeVar("Note")


@dataclass(frozen=True, slots=True)
class Mention(Generic[Note]):
    """Where words name someone or something with a note: as written (`said`), the
    notes they may mean (one: a mention; several: ask which; none: no note yet), and
    the name meant when the words are not all of it ("Sarah Kim" for "Sarah")."""

    said: str
    notes: tuple[Note, ...] = ()
    name: str = ""

    @property
    def ambiguous(self) -> bool:
        """Several notes go by the words: the person is asked which."""
        return len(self.notes) > 1

    @property
    def note(self) -> Note | None:
        """The one note meant, or None (none, or several)."""
        return self.notes[0] if len(self.notes) == 1 else None
