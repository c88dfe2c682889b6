"""What a turn with a model did, and what the reply says: the one place that decides.

The loop (bot.turn.loop) talks to the model and runs its calls; the replies it hands
back are composed here, from the calls' outcomes, without asking the model again:
what was filed, each change that ran at once (a reply of its own with its Undo
button, so a press redraws just that one), what waits for Approve, what failed.
Then `Verdict.judge` decides what the turn means for the person's message:

- a reply that claims a write when nothing was written is not shown;
- a thought the model did not file (it answered in words, said "Saved!" without
  saving, sent calls that stayed broken, or changed a note the message never named)
  is kept in the inbox, in the person's words;
- a question it could not answer gets the keyword search's answer; a change it could
  not make says how to make it with a command; small talk gets a greeting;
- what was said and done joins the conversation's history.

Why a thought is kept at once and not behind a "Save as note" button: the person has
moved on by the time they read the reply, and on a phone an unpressed button is a
lost thought. Tried with a 270M model, most thoughts got an answer in words (often the
model's previous answer repeated) and no call: with a button, 7 of 8 thoughts were not
kept. An inbox note too many costs one press of a category button or /delete; a lost
thought cannot be found again.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from bot import metrics
from bot.commands import GREETING, Kind
from bot.events import Reply
from bot.tools import (
    UNDO_ACTION,
    Outcome,
    ToolContext,
    ToolRunner,
    notes_read,
    search_entries,
    title_from,
)
from bot.turn.citations import with_citations
from storage.db import HistoryItem
from storage.vault import INBOX

log = logging.getLogger(__name__)

UNREACHABLE = (
    "The assistant is unreachable right now, so I saved your message to the inbox "
    "unchanged. Pick a category, or ask me again later."
)
SEARCHED = "The assistant is unreachable right now, so this is a keyword search of your notes."
NOT_FILED = "The assistant did not file this, so I kept your words in the inbox."
NOT_CHANGED = (
    "I could not work out that change, so nothing changed. You can say it with a command: "
    "/move NOTE CATEGORY, /delete NOTE, /append NOTE TEXT, /undo."
)
CUT_SHORT = "The assistant stopped answering midway; this is what was done."
# A model's reply that says it saved something, shown only when something was saved.
CLAIMS_A_WRITE = re.compile(
    r"^\W*(?:done|saved|noted|filed|captured|got it)\b"
    r"|\bI(?:'ve| have| just)?\s+"
    r"(?:saved|filed|noted|captured|stored|added|moved|deleted|updated)\b"
    r"|\b(?:saved|filed) (?:to|in|it|your|as)\b|gespeichert|notiert|저장",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Turn:
    """One message's turn with the model: what was said, what ran, token use."""

    replies: tuple[Reply, ...]
    history: tuple[HistoryItem, ...]
    prompt_tokens: int
    done: tuple[Outcome, ...] = ()  # every call's outcome, in order
    gave_up: bool = False  # the model's calls stayed broken after one chance to fix them
    repairs: tuple[str, ...] = ()
    route: str = ""  # small-model mode: how the message was routed

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools that ran, in order."""
        return tuple(o.name for o in self.done)

    @property
    def written(self) -> tuple[str, ...]:
        """The tools that wrote (a tool not flagged read-only that succeeded), or wait
        for Approve. A search, a list or a digest is no write: a thought that only led
        to one of those is still kept."""
        return tuple(o.name for o in self.done if wrote(o))

    @property
    def wrote(self) -> bool:
        return bool(self.written)


def wrote(outcome: Outcome) -> bool:
    return outcome.approval is not None or (outcome.ok and outcome.writes)


# ---- what the outcomes say ------------------------------------------------------------


def undoable(outcome: Outcome) -> bool:
    """A change that ran at once: its result carries an Undo button."""
    result = outcome.result
    return result is not None and any(b.action == UNDO_ACTION for b in result.buttons)


def change_replies(outcomes: Sequence[Outcome]) -> list[Reply]:
    """One reply per change that ran at once, with its own Undo button."""
    return [
        Reply(o.result.text, buttons=o.result.buttons)
        for o in outcomes
        if o.result is not None and undoable(o)
    ]


def settled(outcomes: Sequence[Outcome]) -> tuple[Reply, ...] | None:
    """The replies when a round needs no more words from the model: its calls were
    captures and changes that ran at once (one model call for them), or one waits for
    Approve. None: the model should see the results and answer."""
    approvals = [o.approval for o in outcomes if o.approval is not None]
    done_now = all(o.ok and (o.captures or undoable(o)) for o in outcomes)
    if not approvals and not done_now:
        return None
    done = [o.result for o in outcomes if o.result is not None and not undoable(o)]
    replies: list[Reply] = []
    if done:
        buttons = tuple(b for r in done for b in r.buttons)
        replies.append(Reply("\n".join(r.text for r in done), buttons=buttons))
    replies += change_replies(outcomes)
    failed = [error_of(o) for o in outcomes if not o.ok]
    if failed:
        replies.append(Reply("Could not do everything: " + "; ".join(failed)))
    replies.extend(a for a in approvals if a is not None)
    return tuple(replies)


def answered(done: Sequence[Outcome], answer: str) -> tuple[Reply, ...]:
    """The model's last words, after the changes that ran at once and the notes filed
    that the words do not name (a model that filed a note, then says "Sorry, I could
    not save that")."""
    filed = [o.result for o in done if o.ok and o.captures and o.result is not None]
    unnamed = [
        Reply(r.text, buttons=r.buttons)
        for r in filed
        if r.entry_path and r.entry_path not in answer
    ]
    return (*unnamed, *change_replies(done), Reply(answer))


def found(done: Sequence[Outcome]) -> tuple[Reply, ...]:
    """What the tools found, when the model had nothing to add: never "Done." for
    nothing. Empty when nothing ran (the verdict decides what that means)."""
    texts = [
        o.result.text
        for o in done
        if o.ok and o.result is not None and o.result.text and not undoable(o)
    ]
    return ((Reply("\n".join(texts)),) if texts else ()) + tuple(change_replies(done))


def routed(outcomes: Sequence[Outcome]) -> tuple[Reply, ...]:
    """Small-model mode's one call: what it did or found, else why it could not."""
    replies = settled(outcomes) or found(outcomes)
    if replies:
        return replies
    errors = [error_of(o) for o in outcomes if not o.ok]
    return tuple(Reply(f"I could not do that: {e}") for e in errors if e)


def cut_short(done: Sequence[Outcome]) -> tuple[Reply, ...]:
    """The model went away after tools ran: say what was done rather than redo it."""
    if not any(wrote(o) for o in done):
        return found(done)
    lines = [o.result.text for o in done if o.result is not None and not undoable(o)]
    replies = [Reply("\n".join(lines))] if lines else []
    replies += change_replies(done)
    replies += [o.approval for o in done if o.approval is not None and o.approval not in replies]
    if not replies:
        replies = [Reply("I started on that but could not finish.")]
    replies[0] = replace(replies[0], notice=CUT_SHORT)
    return tuple(replies)


def over_budget(limit: int, refused: int) -> Reply:
    return Reply(
        f"I stopped after {limit} actions for one message; "
        f"{refused} more were not done. Send the rest in another message."
    )


def error_of(outcome: Outcome) -> str:
    return str(json.loads(outcome.content).get("error", ""))


# ---- what the turn means --------------------------------------------------------------


def carries_the_thought(turn: Turn, text: str) -> bool:
    """Whether what the turn wrote answers the message: a note was filed, or a change
    waiting for Approve touches something the person named ("tea is a project now":
    Move ideas/tea.md to projects/; "I tried oolong": the tea note gets that line). A
    weak model's change to a note the message never mentions does not count."""
    if any(o.captures and wrote(o) for o in turn.done):
        return True
    said = " ".join(f"{r.text} {r.preview or ''}" for r in turn.replies)
    return bool((_stems(text) - _CARD_WORDS) & _stems(said))


# The words every card and result says, which name nothing the person said.
_CARD_WORDS = frozenset(
    w[:5]
    for w in [
        "update",
        "updated",
        "move",
        "moved",
        "delete",
        "deleted",
        "undo",
        "needs",
        "your",
        "approval",
        "this",
        "that",
        "with",
        "note",
        "notes",
        "saved",
        "from",
        "into",
    ]
)


def _stems(text: str) -> set[str]:
    """Words of four letters or more, cut to five ("projects" and "project" meet)."""
    return {w.lower()[:5] for w in _WORD.findall(text) if len(w) > 3}


Answer = Callable[[ToolContext, str], Awaitable[list[Reply]]]


class Verdict:
    """Judges a turn (see the module doc); keeps in the inbox what it must."""

    def __init__(self, runner: ToolRunner, answer: Answer) -> None:
        self.runner = runner
        self.answer = answer  # a question's answer from the keyword search

    async def judge(self, ctx: ToolContext, turn: Turn, text: str, kind: Kind) -> list[Reply]:
        """What the turn did and what the reply says; `kind` is the text's (decided once,
        by the engine)."""
        if turn.wrote and kind == "thought" and not carries_the_thought(turn, text):
            # A change to another note (waiting for Approve) that does not hold the
            # person's words: a weak model's guess. The thought is kept as well.
            metrics.model_repair("kept_thought")
            await self._remember(ctx, turn)
            return [*turn.replies, *await self.keep(ctx, text, NOT_FILED)]
        if turn.wrote:
            await self._remember(ctx, turn)
            return list(turn.replies)
        # Nothing was written: a reply that says otherwise is not shown.
        answers = [r for r in turn.replies if not CLAIMS_A_WRITE.search(r.text)]
        if kind == "thought":
            # Kept at once: an answer in words, even a sensible one, files nothing, and
            # a weak model's answer is often its last one repeated.
            metrics.model_repair("kept_thought")
            log.info("the model filed nothing for a thought (tools: %s); kept", turn.tools)
            return [*answers[:1], *await self.keep(ctx, text, NOT_FILED)]
        if turn.gave_up or not answers:
            if kind == "question":
                return await self.answer(ctx, text)
            if kind == "change":
                return [Reply(NOT_CHANGED)]
            return [Reply(GREETING)]
        await self._remember(ctx, turn)
        searched = search_entries.name in turn.tools
        if kind == "question" and searched and not notes_read(turn.done):
            # The model's searches found nothing: the closest notes to the person's own
            # words, when there are any, follow its answer.
            closest = [r for r in await self.answer(ctx, text) if r.buttons]
            return [*answers, *closest]
        # An answer from notes names them, each with a button that opens it.
        return await with_citations(ctx, turn.done, answers)

    async def unreachable(self, ctx: ToolContext, text: str, kind: Kind) -> list[Reply]:
        """The model could not be reached before anything ran: a question gets the
        keyword search's answer, small talk its greeting, and anything else is kept."""
        if kind == "small_talk":  # as when the model answers it: a greeting is not filed
            return [Reply(GREETING)]
        if kind != "question":
            return await self.keep(ctx, text, UNREACHABLE)
        replies = await self.answer(ctx, text)
        if replies:
            replies[0] = replace(replies[0], notice=SEARCHED)
        return replies

    async def keep(self, ctx: ToolContext, text: str, notice: str | None) -> list[Reply]:
        """File `text` unchanged in the inbox, with the category buttons."""
        outcome = await self.runner.call(
            ctx,
            "capture",
            {
                "category": INBOX,
                "title": title_from(text),
                "body": text,
                "confidence": 0.0,
                "tags": [],
                "fields": [],
            },
        )
        if outcome.result is None:
            return [Reply(f"I could not save that: {error_of(outcome)}. Please send it again.")]
        when = outcome.result.data.get("reminder")
        return [
            Reply(
                " ".join(filter(None, [f"Saved to {outcome.result.entry_path}.", when])),
                buttons=outcome.result.buttons,
                notice=notice,
            )
        ]

    @staticmethod
    async def _remember(ctx: ToolContext, turn: Turn) -> None:
        if ctx.history_later is not None:  # kept with the event's finish
            ctx.history_later.extend(turn.history)
            return
        await ctx.records.conversations.add(
            ctx.conversation.key, ctx.person.id, turn.history, ctx.now
        )
