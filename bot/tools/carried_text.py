"""What reached the model in a turn, and the person's own words in it. Text in notes is
data: everything the model has in its context but the person's message — the results
of the tools that read (notes, search hits, other people's team notes, what a vault's
GET tool fetched), the notes listed for it, earlier tool results, its own earlier
replies and calls, and the person's earlier messages — may hold a planted line. A call
whose arguments carry such text (a run of words that this message does not hold)
waits for Approve, so a planted line cannot send a private note out or write itself
into one; a change the model proposes after reading waits unless the person asked for
it (bot.tools.runner)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from storage.db import HistoryItem

# A run of words an argument shares with what was read carries it: this many words,
# or fewer words that are this long together (an IBAN, a sentence of long words).
RUN_WORDS = 5
SHORT_RUN_WORDS = 3
RUN_CHARS = 24
_WORD = re.compile(r"\w+")

# Why a call waits, as its approval card says.
AFTER_READING = "proposed after reading notes"
CARRIES_NOTES = "it passes on text read from notes"
CARRIES_EARLIER = "it passes on text from an earlier message"
ANSWERING = "proposed while answering a question"


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
    """What one turn's model has in its context, and the person's words in this turn's
    message to tell apart from it. The runs of what reached the model are worked out
    only when an argument carries words this message does not hold: a turn that files
    the person's own words (most) never reads its history's text again."""

    own: set[str] = field(default_factory=set)  # runs of this message's words
    read: bool = False  # a tool that reads ran: what the model says next may be planted
    question: bool = False  # the message only asks: answering it changes nothing at once
    # What reached the model from notes (tool results as sent, the model's own words,
    # the notes listed), and the person's earlier messages: their runs when needed.
    _seen: list[str] = field(default_factory=list)
    _results: list[str] = field(default_factory=list)  # tool results, as JSON: read when needed
    _earlier: list[str] = field(default_factory=list)
    _runs: set[str] = field(default_factory=set)
    _before: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        said: str,
        history: Sequence[HistoryItem] = (),
        reads: Iterable[str] = (),
        context: str = "",
        *,
        question: bool = False,
    ) -> Reading:
        """A turn that starts from `said` after `history`, with `context` (the notes
        listed for the model) beside it: all of it reached the model. The results in
        `history` of the tools named in `reads` were read already (the model still
        sees them)."""
        reading = cls(own=_runs(said), question=question)
        names = {
            call.get("id"): (call.get("function") or {}).get("name")
            for item in history
            for call in item.tool_calls or ()
        }
        readers = set(reads)
        for item in history:
            if item.role == "user":
                reading._earlier.append(item.content)
            elif item.role == "tool":
                reading.saw(item.content, read=names.get(item.tool_call_id, "") in readers)
            else:  # the model's own earlier replies and calls, which may quote notes
                reading._seen.append(item.content or "")
                for call in item.tool_calls or ():
                    arguments = (call.get("function") or {}).get("arguments")
                    reading.saw(str(arguments or ""), read=False)
        reading._seen.append(context)
        return reading

    def saw(self, content: str, *, read: bool = True) -> None:
        """A tool's result (or a call's arguments), as the model gets it: `read` when
        the tool reads notes."""
        self.read = self.read or read
        self._results.append(content)

    @property
    def runs(self) -> set[str]:
        """The runs of what reached the model from notes."""
        while self._results:
            self._seen.extend(_texts_of(self._results.pop()))
        while self._seen:
            self._runs |= _runs(self._seen.pop())
        return self._runs

    @property
    def before(self) -> set[str]:
        """The runs of the person's earlier messages."""
        while self._earlier:
            self._before |= _runs(self._earlier.pop())
        return self._before

    def carried(self, value: Any) -> str | None:
        """Why `value` (an argument, a change's text) may not go at once: it carries
        text that reached the model from notes (CARRIES_NOTES), or text the person
        wrote only in an earlier message, perhaps a note's too (CARRIES_EARLIER); None
        when it carries nothing but this message's words."""
        passed = {run for text in strings(value) for run in _runs(text)} - self.own
        if not passed:
            return None
        if passed & self.runs - self.before:
            return CARRIES_NOTES
        if passed & (self.runs | self.before):
            return CARRIES_EARLIER
        return None
