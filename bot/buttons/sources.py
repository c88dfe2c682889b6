"""The Open button under an answer's sources (bot.tools.sources makes them): a press
shows the note as it is now: its title and path, the passage that matched when the
answer was given, then its text, cut to a length a chat shows whole.

Opening changes nothing, so a button works as often as it is pressed; only the
person it was made for (or, in a team vault, a member) may press it, and a note
deleted or moved since is said to be gone.
"""

from __future__ import annotations

from bot.buttons.dispatch import ButtonHandler, pressed
from bot.events import Reply
from bot.tools import OPEN_ACTION, OPEN_KIND, ToolContext, ToolError, in_team, why
from storage import EntryNotFound, StorageError

TEXT_CHARS = 1500


class SourceButtons(ButtonHandler):
    """The `source` buttons, one per source of an answer."""

    actions = (OPEN_ACTION,)

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        stored, scoped = await pressed(
            ctx,
            value,
            OPEN_KIND,
            members=True,
            unknown="I don't know that source; nothing to show.",
            not_yours="Only the person who asked can open this source.",
        )
        path = str(stored.payload["path"])
        title = str(stored.payload.get("title") or path)
        try:
            team = await in_team(scoped, path)
            store, inner = (team[0].store, team[1]) if team else (scoped.store, path)
            entry = await store.read(inner)
        except EntryNotFound:
            return [Reply(f"{title} ({path}) is no longer in your notes: it was deleted or moved.")]
        except (ToolError, StorageError) as exc:
            return [Reply(f"Could not open {path}: {exc}")]
        reason = why(str(stored.payload.get("matched") or ""))
        lines = [f"{entry.title} ({path})" + (f" · found by {reason}" if reason else "")]
        passage = " ".join(str(stored.payload.get("passage") or "").split())
        if passage:
            lines.append(f"Matched: {passage}")
        body = entry.body.strip()
        if len(body) > TEXT_CHARS:
            cut = body.rfind(" ", 0, TEXT_CHARS)
            body = body[: cut if cut > TEXT_CHARS // 2 else TEXT_CHARS].rstrip()
            body += f"…\n(cut short: /get {path} shows all of it)"
        return [Reply("\n".join(lines) + (f"\n\n{body}" if body else ""))]
