"""The tools the model (and the command router) can call; importing this registers them."""

from bot.tools import changes, digest, notes, reminders, settings
from bot.tools.registry import REGISTRY, ToolContext, ToolError, ToolResult

__all__ = [
    "REGISTRY",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "changes",
    "digest",
    "notes",
    "reminders",
    "settings",
]
