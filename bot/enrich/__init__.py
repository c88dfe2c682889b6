"""What a message shares, read after its note is saved: a link's page, the text in a
photo, a document's text, a voice note's words heard on this machine. The note is
committed first, exactly as sent; what is read lands as a second commit on the same
note (or the person is told why it could not)."""

from __future__ import annotations

from bot.enrich.arrivals import Arrivals
from bot.enrich.background import Background
from bot.enrich.fetch_policy import FetchPolicy
from bot.enrich.hearing import Hearing, TranscribeMode, choose
from bot.enrich.link_keys import find_urls
from bot.enrich.read_item import Readers, Speech
from bot.enrich.worker import Enricher, where_now

__all__ = [
    "Arrivals",
    "Background",
    "Enricher",
    "FetchPolicy",
    "Hearing",
    "Readers",
    "Speech",
    "TranscribeMode",
    "choose",
    "find_urls",
    "where_now",
]
