"""People: who may use the bot, which person a platform identity is, their settings,
linking their accounts, how fast they may send, and which teams they are still in."""

from bot.people.access import Access
from bot.people.directory import People
from bot.people.emails import email_setting, mailbox_named
from bot.people.ratelimit import RateLimit
from bot.people.settings import SettingsChange, change_from_words, describe_settings, weekday
from bot.people.teams import ChatMembers, Swept, TeamMembership

__all__ = [
    "Access",
    "ChatMembers",
    "People",
    "RateLimit",
    "SettingsChange",
    "Swept",
    "TeamMembership",
    "change_from_words",
    "describe_settings",
    "email_setting",
    "mailbox_named",
    "weekday",
]
