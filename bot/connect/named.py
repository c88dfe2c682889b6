"""Which people and projects a person's words name: the notes of the `people` and
`projects` folders, by title, alias, file name or `[[link]]`.

How a name is recognised (bench/timeline.py measures it on labelled captures):
- Whole words, case- and accent-insensitive: "zoe mendez" is Zoë Méndez. The longest
  name wins ("Sarah Kim" over "Sarah"), and a name joined to another word by a hyphen
  ("Sarah-Jane") is not that name; a possessive ("Sarah's") is.
- Not inside code (backticks, fenced or indented blocks), a URL, an e-mail address or
  a domain (`github.com/will`): those are not someone being talked about.
- A `[[link]]` to the note (`[[Sarah Kim]]`, `[[people/sarah-kim|Sarah]]`) names it
  whatever its label says.
- A person's first name alone ("Sarah") names them when exactly one person has it;
  when several do, the mention is ambiguous and the caller asks. A first name that is
  also an everyday word ("Will", "Mark", "May") counts only written with a capital
  and not as a sentence's first word ("Will you call?" is a question, not Will).
  One word that is a note's whole title or an alias follows the same rule when it is
  such a word. A first name followed by another capitalised word is someone else
  ("Mark Twain", "Sarah Connor").
- A project's name after a word that makes it someone else's ("her book club", "the
  neighbours' kitchen renovation") is not the person's project.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from storage.index import fold, name_key, path_key
from storage.text import wikilinks
from storage.text.code import without_code
from storage.text.person_names import Mention, someone_elses
from storage.text.urls import without_addresses
from storage.vault import PEOPLE

LONGEST_NAME = 6  # words: longer titles are not looked for in running text
# Given names that are also everyday words: written in lower case, or first in a
# sentence, they are the word ("I will call", "Mark the date").
EVERYDAY = frozenset(
    """will mark may june april august bill pat rose grace hope joy faith summer art
    jack frank rob sue drew gene max ray dawn rich miles chase hunter penny ruby amber
    jade holly ivy iris daisy lily violet olive sky river stone brook dean earl guy don
    carol lane wade glen dale cliff heath reed sandy rusty skip bud duke king prince
    major page mason cook baker chance sage star autumn winter june faith heather
    victor harmony melody liberty justice bob ward hall gray grey green brown black
    white young long""".split()  # noqa: SIM905 (a word list reads best as words)
)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Named:
    """A person's or project's note and the names it goes by."""

    path: str
    title: str
    category: str
    aliases: tuple[str, ...] = ()

    @property
    def first_name(self) -> str | None:
        """A person's first name, when the title has more words than one."""
        words = _WORD.findall(self.title)
        return words[0] if self.category == PEOPLE and len(words) > 1 else None


# Where the words name a note: as written, and the notes they may mean (one: a
# mention; several: ask which).
NoteMention = Mention[Named]


@dataclass(frozen=True, slots=True)
class _Word:
    key: str  # folded
    start: int
    end: int
    capital: bool
    joined_before: bool  # a hyphen ties it to the word before
    joined_after: bool
    sentence_start: bool
    someone_elses: bool  # after "her", "their", "the neighbours'", "Sarah's"


class Names:
    """Every name of a vault's people and projects, ready to be found in a text."""

    def __init__(self, notes: Iterable[Named], *, first_names: bool = True) -> None:
        self._full: dict[tuple[str, ...], dict[str, Named]] = {}
        self._first: dict[tuple[str, ...], dict[str, Named]] = {}
        self._by_key: dict[str, dict[str, Named]] = {}  # link key or path key -> notes
        for note in notes:
            stem = note.path.rsplit("/", 1)[-1].removesuffix(".md")
            for name in (note.title, stem, *note.aliases):
                words = tuple(fold(w) for w in _WORD.findall(name))
                if 0 < len(words) <= LONGEST_NAME:
                    self._full.setdefault(words, {})[note.path] = note
                self._by_key.setdefault(name_key(name), {})[note.path] = note
            self._by_key.setdefault(path_key(note.path), {})[note.path] = note
            first = note.first_name
            if first_names and first is not None:
                self._first.setdefault((fold(first),), {})[note.path] = note

    def find(self, text: str, *, leave_out: Collection[str] = ()) -> list[NoteMention]:
        """The notes `text` names, each once, in the order first named; a note in
        `leave_out` (the capture itself) is never one."""
        masked = without_addresses(without_code(text))
        found: list[NoteMention] = []
        pieces: list[str] = []  # `masked` with each link blanked or shown as its words
        done = 0
        for link in wikilinks.find(masked):
            written = masked[link.start : link.end]
            target = link.target
            notes = self._by_key.get(path_key(target)) or self._by_key.get(name_key(target))
            if notes:
                found.append(Mention(written, tuple(notes.values())))
                shown = " " * len(written)
            else:  # a link to no such note: the words of its target may name someone
                raw = link.inner.partition("|")[0].partition("#")[0]
                shown = f"{' ' * (link.inner_start - link.start)}{raw}".ljust(len(written))
            pieces += [masked[done : link.start], shown]
            done = link.end
        masked = "".join([*pieces, masked[done:]])
        found += self._in_words(text, _words(text, masked))
        return _once(found, leave_out)

    def _in_words(self, text: str, words: Sequence[_Word]) -> list[NoteMention]:
        found: list[NoteMention] = []
        i = 0
        while i < len(words):
            hit = self._longest(words, i)
            if hit is None:
                i += 1
                continue
            n, notes = hit
            said = text[words[i].start : words[i + n - 1].end]
            found.append(Mention(said, tuple(notes)))
            i += n
        return found

    def _longest(self, words: Sequence[_Word], i: int) -> tuple[int, list[Named]] | None:
        if words[i].joined_before:
            return None
        for n in range(min(LONGEST_NAME, len(words) - i), 0, -1):
            if words[i + n - 1].joined_after:
                continue
            key = tuple(w.key for w in words[i : i + n])
            full = self._full.get(key)
            first = self._first.get(key) if n == 1 else None
            notes = full or first
            if not notes:
                continue
            if words[i].someone_elses and all(n.category != PEOPLE for n in notes.values()):
                return None  # "her book club" is not the person's Book club project
            if n == 1 and not _a_name_here(words, i, first_only=not full):
                continue
            return n, list(notes.values())
        return None


def _a_name_here(words: Sequence[_Word], i: int, *, first_only: bool) -> bool:
    """Whether one word is a name here. One that is also an everyday word is a name
    only capitalised and not first in its sentence (unless possessive: "Mark's").
    A first name followed by another capitalised word is someone else's ("Mark
    Twain", "Sarah Connor")."""
    word = words[i]
    after = words[i + 1] if i + 1 < len(words) else None
    close = after is not None and after.start - word.end == 1
    if first_only and close and after is not None and after.capital and after.key != "s":
        return False
    if word.key not in EVERYDAY:
        return True
    possessive = close and after is not None and after.key == "s"
    return word.capital and (not word.sentence_start or possessive)


def _words(text: str, masked: str) -> list[_Word]:
    words: list[_Word] = []
    for match in _WORD.finditer(masked):
        start, end = match.span()
        before = masked[max(0, start - 2) : start]
        after = masked[end : end + 2]
        words.append(
            _Word(
                key=fold(match.group(0)),
                start=start,
                end=end,
                capital=text[start:end][:1].isupper(),
                joined_before=len(before) == 2 and before[1] == "-" and before[0].isalnum(),
                joined_after=len(after) == 2 and after[0] == "-" and after[1].isalnum(),
                sentence_start=_starts_sentence(masked, start),
                someone_elses=someone_elses(masked[max(0, start - 8) : start]),
            )
        )
    return words


def _starts_sentence(text: str, at: int) -> bool:
    """Whether the word at `at` begins the text, a line, a list item or a sentence."""
    i = at - 1
    while i >= 0 and text[i] in " \t\"'\u201c\u2018([*-\u2022":
        i -= 1
    return i < 0 or text[i] in ".!?:;\n"


def _once(found: Iterable[NoteMention], leave_out: Collection[str]) -> list[NoteMention]:
    """Each note once (a clear mention wins over an ambiguous one naming it too)."""
    out: list[NoteMention] = []
    clear = {m.notes[0].path for m in found if not m.ambiguous}
    seen: set[tuple[str, ...]] = set()
    for mention in found:
        notes = tuple(n for n in mention.notes if n.path not in leave_out)
        if not notes or (mention.ambiguous and len(notes) < len(mention.notes)):
            continue  # the capture itself, or a name it shares: not someone else named
        if len(notes) > 1 and any(n.path in clear for n in notes):
            continue  # "Sarah Kim … Sarah": the second is the same Sarah
        key = tuple(sorted(n.path for n in notes))
        if key in seen:
            continue
        seen.add(key)
        out.append(Mention(mention.said, notes))
    return out
