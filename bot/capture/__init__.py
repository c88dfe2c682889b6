"""One capture path: whatever the door (a chat's `/capture`, a Slack shortcut, a
Telegram `/save`, the API, MCP, mail), a capture is one typed request
(bot.events.CaptureRequest) that one function decides (bot.capture.capturing), and
what follows a capture (reading its links and files, the timelines it names, related
notes) follows every one, whichever route filed it (bot.capture.follow_ups)."""

from bot.capture.capturing import Captured, Capturing, capture_words
from bot.capture.follow_ups import AfterCapture

__all__ = ["AfterCapture", "Captured", "Capturing", "capture_words"]
