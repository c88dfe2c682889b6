"""Web addresses in text: the links a message shares (what is fetched, what a title
leaves out), and every stretch that is an address rather than words about someone.

Choices a person would notice:
- A link is `http` or `https`; `javascript:`, `file:`, `ftp:`, `git+https:` and a bare
  `example.org` are not links to fetch.
- A link inside code (inline or a block: storage.text.code) is not one: a person who writes
  `curl https://api.example.org/v1/items` is noting a command, not sharing a page.
- A link runs from its scheme to the first space, quote, angle bracket, backtick or
  full-width punctuation (Japanese and Chinese run text on after a link without a
  space); what a sentence put after it (a full stop, a bracket it did not open) is not
  part of it, but a bracket the address opened itself is
  (`https://en.wikipedia.org/wiki/Python_(language)`). So `label (https://url)` (how
  adapters show Slack's and Telegram's hidden links) and `[label](https://url)` give
  the address alone.
- An address is any scheme's URL, a `www.` name, an e-mail address or a bare domain
  with or without a path (`github.com/will`): nobody is being talked about there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from storage.text.code import without_code

__all__ = ["link_spans", "links", "without_addresses"]

_FULL_WIDTH_STOPS = (
    "\u3001\u3002\uff0c\uff0e\uff01\uff1f"  # ideographic comma and full stop, full-width ,.!?
    "\u300c\u300d\u300e\u300f\u3010\u3011\u300a\u300b\uff08\uff09"  # CJK brackets
)
# Each alternative starts only where a run of its characters starts, so a text of
# 20,000 "Sarah-" (or "a+") is one look at the run, not one per letter of it.
_SCHEME_URL = (
    rf"""(?<![a-z0-9+.-])(?P<scheme>[a-z][a-z0-9+.-]*+)://[^\s<>"'`{_FULL_WIDTH_STOPS}]+"""
)
_URL = re.compile(_SCHEME_URL, re.IGNORECASE)
_ADDRESS = re.compile(
    rf"{_SCHEME_URL}|\bwww\.\S+"
    r"|(?<![\w.+-])[\w.+-]++@[\w-]+(?:\.[\w-]+)+"
    r"|(?<![\w.-])[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|app|ai|co|de|fr|uk|edu|gov|me)\b\S*",
    re.IGNORECASE,
)
_WEB = frozenset({"http", "https"})
# Punctuation that ends a message's sentence rather than the address.
_TRAILING = ".,;:!?'\"*\u2026\uff1a\uff1b"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def link_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each http and https link of `text` is (outside code), in order."""
    if "://" not in text:  # no link: no code to blank out first
        return
    for match in _URL.finditer(without_code(text)):
        if match["scheme"].lower() in _WEB:
            url = _trimmed(match.group())
            if "://" in url and url.split("://", 1)[1]:
                yield match.start(), match.start() + len(url)


def links(text: str) -> list[str]:
    """The http and https links of `text` (outside code), in order, as written."""
    return [text[start:end] for start, end in link_spans(text)]


def without_addresses(text: str) -> str:
    """`text` with every address blanked (the same length, line breaks kept)."""
    return _ADDRESS.sub(lambda match: " " * len(match.group()), text)


def _trimmed(url: str) -> str:
    """`url` without the punctuation and unopened closing brackets a sentence put after it."""
    while url:
        last = url[-1]
        unopened = last in _CLOSERS and url.count(last) > url.count(_CLOSERS[last])
        if last in _TRAILING or unopened:
            url = url[:-1]
        else:
            break
    return url
