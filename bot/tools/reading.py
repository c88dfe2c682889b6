"""What a turn with a model has read: the results of the tools that read (notes, search
hits, other people's team notes, what a vault's GET tool fetched), and the person's own
words. Text in notes is data: a change the model proposes after reading waits for
Approve unless the person asked for it, and a call whose arguments carry text the turn
read (not the person's) waits too, so a planted line cannot send a private note out."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from storage.db.conversations import HistoryItem

# A run of words an argument shares with what was read carries it: this many words,
# or fewer words that are this long together (an IBAN, a sentence of long words).
RUN_WORDS = 5
SHORT_RUN_WORDS = 3
RUN_CHARS = 24
_WORD = re.compile(r"\w+")

# Why a call waits, as its approval card says.
AFTER_READING = "proposed after reading notes"
CARRIES_NOTES = "it passes on text read from notes"


def _runs(text: str) -> set[str]:
    """The runs of words in `text` long enough to carry it (see RUN_WORDS)."""
    words = _WORD.findall(unquote_plus(text).lower())
    runs = {" ".join(words[i : i + RUN_WORDS]) for i in range(len(words) - RUN_WORDS + 1)}
    for i in range(len(words) - SHORT_RUN_WORDS + 1):
        run = " ".join(words[i : i + SHORT_RUN_WORDS])
        if len(run) >= RUN_CHARS:
            runs.add(run)
    # A script without spaces between words reads as one long word: its stretches.
    for word in words:
        if len(word) >= RUN_CHARS and not word.isascii():
            runs.update(word[i : i + RUN_CHARS] for i in range(len(word) - RUN_CHARS + 1))
    return runs


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def _texts_of(content: str) -> Iterator[str]:
    """The text in a tool result as sent to the model (JSON, perhaps cut short)."""
    try:
        yield from strings(json.loads(content))
    except ValueError:
        yield content.replace("\\n", " ")


@dataclass
class Reading:
    """What one turn has read so far, and the person's own words to tell apart from it."""

    own: set[str] = field(default_factory=set)  # runs of the person's own words
    runs: set[str] = field(default_factory=set)  # runs of what tools returned
    read: bool = False  # a tool that reads ran: what the model says next may be planted

    @classmethod
    def of(cls, said: str, history: Sequence[HistoryItem], reads: Iterable[str]) -> Reading:
        """A turn that starts from `said` after `history`: the results in it of the tools
        named in `reads` were read already (the model still sees them)."""
        reading = cls(own=_runs(said))
        names = {
            call.get("id"): (call.get("function") or {}).get("name")
            for item in history
            for call in item.tool_calls or ()
        }
        readers = set(reads)
        for item in history:
            if item.role == "user":
                reading.own |= _runs(item.content)
            elif item.role == "tool" and names.get(item.tool_call_id, "") in readers:
                reading.saw(item.content)
        return reading

    def saw(self, content: str) -> None:
        """A read tool's result, as the model gets it."""
        self.read = True
        for text in _texts_of(content):
            self.runs |= _runs(text)

    def carries(self, value: Any) -> bool:
        """Whether `value` (an argument, a change's text) carries text the turn read that
        is not the person's own."""
        if not self.runs:
            return False
        return any(
            run in self.runs and run not in self.own
            for text in strings(value)
            for run in _runs(text)
        )
