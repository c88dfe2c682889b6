"""The digest: what matters today (or this week), composed from the index, with a
model's short opening when there is a model, and shown in chat with buttons."""

from bot.digest.compose import Digest, compose_digest
from bot.digest.message import (
    DIGEST_ACTION_KIND,
    LESS_ACTION,
    LINK_ACTION,
    PAST_DONE_ACTION,
    draw,
    present,
)
from bot.digest.resurface import record_shown
from bot.digest.summary import with_summary

__all__ = [
    "DIGEST_ACTION_KIND",
    "LESS_ACTION",
    "LINK_ACTION",
    "PAST_DONE_ACTION",
    "Digest",
    "compose_digest",
    "draw",
    "present",
    "record_shown",
    "with_summary",
]
