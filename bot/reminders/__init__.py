"""Reminders as the person sees them: the message at `remind` time and its choices."""

from bot.reminders.message import REMINDER_ACTION_KIND, SNOOZES, reminder_message, snoozed

__all__ = ["REMINDER_ACTION_KIND", "SNOOZES", "reminder_message", "snoozed"]
