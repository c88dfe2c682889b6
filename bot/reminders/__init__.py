"""Reminders as the person sees them: the message at `remind` time and its choices."""
