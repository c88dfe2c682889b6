"""What a turn of the tool loop says, composed from its tool outcomes without asking
the model again: what was filed, what changed at once (each change its own reply with
its Undo button, so a press redraws just that one), what waits for approval."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.events import Reply
from bot.tools.runner import UNDO_ACTION, Outcome


def undoable(outcome: Outcome) -> bool:
    """A change that ran at once: its result carries an Undo button."""
    result = outcome.result
    return result is not None and any(b.action == UNDO_ACTION for b in result.buttons)


def change_replies(outcomes: Sequence[Outcome]) -> list[Reply]:
    """One reply per change that ran at once, with its own Undo button: a press redraws
    just that reply."""
    return [
        Reply(o.result.text, buttons=o.result.buttons)
        for o in outcomes
        if o.result is not None and undoable(o)
    ]


def direct_replies(outcomes: Sequence[Outcome]) -> tuple[Reply, ...] | None:
    """Replies composed without another model round: after successful captures and
    changes that ran at once only (one LLM call for them), or when a call waits for
    approval."""
    approvals = [o.approval for o in outcomes if o.approval is not None]
    settled = all(o.ok and (o.name == "capture" or undoable(o)) for o in outcomes)
    if not approvals and not settled:
        return None
    done = [o.result for o in outcomes if o.result is not None and not undoable(o)]
    replies: list[Reply] = []
    if done:
        buttons = tuple(b for r in done for b in r.buttons)
        replies.append(Reply("\n".join(r.text for r in done), buttons=buttons))
    replies += change_replies(outcomes)
    failed = [json.loads(o.content).get("error", "") for o in outcomes if not o.ok]
    if failed:
        replies.append(Reply("Could not do everything: " + "; ".join(failed)))
    replies.extend(a for a in approvals if a is not None)
    return tuple(replies)


def unmentioned_writes(done: Sequence[Outcome], answer: str) -> list[Reply]:
    """The notes filed in this turn, when the model's last words do not name them (a
    model that filed a note and then says "Sorry, I could not save that")."""
    written = [o.result for o in done if o.ok and o.name == "capture" and o.result is not None]
    missing = [r for r in written if r.entry_path and r.entry_path not in answer]
    return [Reply(r.text, buttons=r.buttons) for r in missing]


def read_results(done: Sequence[Outcome]) -> tuple[Reply, ...]:
    """What the tools found, when the model had nothing to add: never "Done." for
    nothing. Empty when nothing ran (the engine decides what that means)."""
    found = [
        o.result.text
        for o in done
        if o.ok and o.result is not None and o.result.text and not undoable(o)
    ]
    return ((Reply("\n".join(found)),) if found else ()) + tuple(change_replies(done))
