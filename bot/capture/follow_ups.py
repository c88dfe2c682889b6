"""What follows a capture, after its reply: the job that reads its links and files
into the note (bot.enrich), the line on the timelines of the people and projects its
words name, and the related notes (bot.connect). One collaborator every route hands
its filed note to (the model's turn, the small-model routes, the no-model router, a
door's typed request), so none of them can forget a step."""

from __future__ import annotations

from bot.connect import Related, Timeline
from bot.enrich import Arrivals
from bot.tools import ToolContext

# Whose words may not name a timeline: a mail's text is often someone else's (a
# forwarded mail), and text someone else wrote never writes into a person's note.
NOT_OWN_WORDS = frozenset({"email"})


class AfterCapture:
    """The follow-ups of a capture (see the module doc); `follow` is its door."""

    def __init__(self, arrivals: Arrivals, timeline: Timeline, related: Related) -> None:
        self.arrivals = arrivals
        self.timeline = timeline
        self.related = related

    async def follow(self, ctx: ToolContext, words: str) -> None:
        """After the reply to an event that filed `ctx.filed` from the person's own
        `words`: keep the reading job (it outlives a restart), then start the timeline
        lines and the related notes in the background. Nothing when nothing was filed."""
        if not ctx.filed:
            return
        await self.arrivals.read_later(ctx)
        if ctx.conversation.platform not in NOT_OWN_WORDS:
            self.timeline.follow(ctx, words)
        self.related.after(ctx)

    async def wait_idle(self) -> None:
        """Until every follow-up started so far has finished (tests, a drain)."""
        await self.arrivals.enricher.wait_idle()
        await self.timeline.wait_idle()
        await self.related.wait_idle()
