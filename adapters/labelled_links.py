"""How a link someone labelled reads as plain text, the same on every platform.

Slack sends `<url|label>` and Telegram a `text_link` entity over the label; the
engine (and the note it files) sees one form for both, so the address is never
hidden behind its words.
"""

from __future__ import annotations


def labelled_link(label: str, url: str) -> str:
    """`label (url)`; just the url when the label only repeats it (`x.org/a` for
    `https://x.org/a`, or a mail address for its `mailto:` link)."""
    bare = url.removeprefix("mailto:").split("://", 1)[-1]
    if not label.strip() or label in (url, bare):
        return url.removeprefix("mailto:")
    return f"{label} ({url})"
