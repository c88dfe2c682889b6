"""Telegram adapter (python-telegram-bot): quick notes, voice, photos, inline-keyboard approvals."""

from adapters.telegram.app import TelegramAdapter

__all__ = ["TelegramAdapter"]
