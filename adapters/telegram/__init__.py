"""Telegram (python-telegram-bot): quick notes, voice, photos, inline-keyboard approvals.
The folder's one export is its platform contract; the adapter (`app`) is built from it."""

from adapters.telegram.platform import TELEGRAM

__all__ = ["TELEGRAM"]
