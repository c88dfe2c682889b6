"""People: who may use the bot, which person a platform identity is, their settings,
linking their accounts, and how fast they may send."""

from bot.people.access import Access
from bot.people.directory import People
from bot.people.ratelimit import RateLimit
from bot.people.settings import SettingsChange, change_from_words, describe_settings, weekday

__all__ = [
    "Access",
    "People",
    "RateLimit",
    "SettingsChange",
    "change_from_words",
    "describe_settings",
    "weekday",
]
