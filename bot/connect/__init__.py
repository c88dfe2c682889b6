"""What a capture connects to, found after its reply: the people and projects its
words name keep a timeline of it (bot.connect.timeline), and the notes it is most
related to are suggested or linked (bot.connect.related)."""

from bot.connect.link_button import LinkButton
from bot.connect.related import Related, most_related, related_enough, with_related
from bot.connect.timeline import Timeline, TimelineChoice

__all__ = [
    "LinkButton",
    "Related",
    "Timeline",
    "TimelineChoice",
    "most_related",
    "related_enough",
    "with_related",
]
