"""Readers of what people share: the text of a PDF, a Word file, a photo (OCR) or a web
page, the words of a voice note (local transcription). They read untrusted bytes, so
the bot runs them in reader processes held by an address-space limit and a wall-clock
kill (bot.readers.pool)."""

from bot.readers.pages import Page
from bot.readers.pool import ReaderPool
from bot.readers.speech import Heard, missing, packaged_model
from bot.readers.unreadable import Unreadable

__all__ = ["Heard", "Page", "ReaderPool", "Unreadable", "missing", "packaged_model"]
