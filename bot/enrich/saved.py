"""A link saved before: the same page shared twice is one note, and the new words go
there (issue: rich capture). Links are compared by their normalised form, so a copy
with tracking parameters, another scheme or `www.` is the same page."""

from __future__ import annotations

from urllib.parse import urlsplit

from bot.enrich.link_keys import find_urls, normalise
from storage import Store


async def saved_before(store: Store, url: str) -> tuple[str, str] | None:
    """(path, title) of the newest note of this vault whose `url` is this page."""
    try:
        key = normalise(url)
    except ValueError:
        return None
    host = (urlsplit(key).hostname or "").removeprefix("www.")
    if not host:
        return None
    for path, title, value in await store.index.field_values("url", host):
        try:
            if normalise(value) == key:
                return path, title
        except ValueError:
            continue
    return None


def own_words(text: str) -> str:
    """What a message says besides its links."""
    for url in find_urls(text):
        text = text.replace(url, " ")
    return " ".join(text.split())
