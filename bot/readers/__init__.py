"""Readers of what people share: the text of a PDF, a Word file, a photo (OCR) or a web
page. They read untrusted bytes, so the bot runs them in reader processes held by an
address-space limit and a wall-clock kill (bot.readers.pool)."""

from bot.readers.pages import Page
from bot.readers.pool import ReaderPool
from bot.readers.unreadable import Unreadable

__all__ = ["Page", "ReaderPool", "Unreadable"]
