"""Over many scripted turns, every source an answer names is a note that turn read.

The fake model searches, opens some of the hits, and answers citing a mix: notes it
read (by title, by path), notes in the vault it never read this turn, and names it
made up. Whatever it cites, the reply's sources are only what it read, the made-up
and unread [[names]] are gone from its words, and every read note it cited is listed.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bot.turn.citations import _without
from storage.entry import Author
from tests.bot.helpers import message
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, ToolCall, call, calls, say

TURNS = 40
TOPICS = ["budget", "garden", "travel", "tea", "sarah", "laptop"]
NOTES = [
    ("projects", f"{topic.title()} {n}", f"Notes on the {topic}, part {n}: detail {topic}{n}.")
    for topic in TOPICS
    for n in (1, 2)
]
SOURCE_LINE = re.compile(r"^- (?P<title>.+?) \((?P<path>[^()]+\.md)\)", re.MULTILINE)


class CitingModel:
    """A model that cites what it read, what it did not, and what does not exist."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.read: dict[str, str] = {}  # path -> title, this turn
        self.cited: list[str] = []  # what the last answer cited as read notes (paths)
        self.invented: list[str] = []  # [[names]] the last answer must not keep

    def __call__(self, body: dict[str, Any]) -> Step:
        last = body["messages"][-1]
        if last["role"] == "user":
            self.read = {}
            return call("search_entries", query=self.random.choice(TOPICS), limit=3)
        # This turn's results: those after the person's message (earlier turns' are
        # in the history too, but this turn did not read them).
        start = max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")
        results = [
            json.loads(m["content"])
            for m in body["messages"][start:]
            if m["role"] == "tool" and m["content"].startswith("{")
        ]
        for result in results:
            for hit in result.get("results", []):
                self.read[hit["path"]] = hit["title"]
            if "body" in result:
                self.read[result["path"]] = result["title"]
        opened = sum(1 for r in results if "body" in r)
        if not opened and self.read and self.random.random() < 0.7:
            pick = self.random.sample(sorted(self.read), k=min(2, len(self.read)))
            return calls(*(ToolCall("get_entry", {"path": p}) for p in pick))
        return say(self._answer())

    def _answer(self) -> str:
        parts = ["Here is what I found."]
        read = sorted(self.read)
        self.cited = self.random.sample(read, k=self.random.randint(0, len(read)))
        for path in self.cited:
            parts.append(f"[[{self.read[path]}]]" if self.random.random() < 0.6 else path)
        unread = [t for _, t, _ in NOTES if t not in self.read.values()]
        self.invented = [f"[[{t}]]" for t in self.random.sample(unread, k=1)]
        self.invented.append(f"[[Made up {self.random.randint(1, 999)}]]")
        parts += self.invented
        self.random.shuffle(parts)
        return " ".join(parts)


async def test_every_cited_note_is_one_the_turn_read(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    model = CitingModel(seed=30)
    openai_fake.responder = model
    counted = {"sources": 0, "invented_dropped": 0, "read_cited_listed": 0}
    # Forty questions in a row: more than a person may send a minute (0: no limit).
    async with running_brain(tmp_path, database_url, openai_fake, BRAINBOT_RATE_LIMIT=0) as brain:
        for category, title, text in NOTES:
            await brain.store.create(category, title, text, {}, author=Author("A", "a@b.c"))
        for turn in range(TURNS):
            (reply,) = await brain.engine.handle(message(f"what about question {turn}?"))
            words, _, sources = reply.text.partition("\n\nSources:\n")
            listed = {m["path"]: m["title"] for m in SOURCE_LINE.finditer(sources)}
            assert set(listed) <= set(model.read), (turn, reply.text)
            assert len(reply.buttons) == len(listed)
            assert {b.label for b in reply.buttons} <= set(model.read.values())
            for name in model.invented:
                assert name not in words, (turn, reply.text)
            counted["invented_dropped"] += len(model.invented)
            if model.cited:
                assert set(listed) == set(model.cited), (turn, reply.text)
                counted["read_cited_listed"] += len(model.cited)
            counted["sources"] += len(listed)
    # Enough happened for the property to mean something.
    assert counted["sources"] >= TURNS
    assert counted["invented_dropped"] == 2 * TURNS
    assert counted["read_cited_listed"] >= TURNS // 2


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("Cut by a third [[Budget Q3]] (see [[Nope]]).", "Cut by a third [[Budget Q3]]."),
        ("See also [[Nope]].", "See also."),
        ("Sources: [[Budget Q3]], [[Nope]]", "Sources: [[Budget Q3]]"),
        ("[[Nope]] and [[Budget Q3]] agree", "[[Budget Q3]] agree"),
        ("Tasks:\n- [ ] call Tom (see [[Nope]])\n- [x] book", "Tasks:\n- [ ] call Tom\n- [x] book"),
    ],
)
def test_an_invented_citation_goes_with_what_only_served_it(answer: str, kept: str) -> None:
    assert _without(answer, "[[Nope]]").strip() == kept
