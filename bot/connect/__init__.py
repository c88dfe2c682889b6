"""What a capture connects to, found after its reply: the people and projects its
words name keep a timeline of it (bot.connect.timeline)."""

from bot.connect.timeline import Timeline, TimelineChoice

__all__ = ["Timeline", "TimelineChoice"]
