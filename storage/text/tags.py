"""Tags written in a note's text (`#reading`), as Obsidian reads them, so `tag:reading`
finds a note tagged inline as well as one tagged in its frontmatter.

- A tag is `#` then letters, digits, `_`, `-` and `/`, with at least one letter:
  `#123` (an issue number) and `#2026` are no tags, `#y2026` is.
- `#` must start a word: not after a letter or digit (`C#`, `page#part`), another `#`
  (`##`), `&` (`&#123;`) or `/`. `# Heading` is a heading (a space follows the `#`).
- Nothing in code (storage.text.code), in a `[[wikilink]]` (`[[Note#Heading]]`), in an
  address (`https://example.org/#/route`) or a Markdown link's destination
  (`[see](#section)`) is a tag.
- `#a/b` is a nested tag; it also counts as its parent `a` (`tag:a` finds it, as in
  Obsidian's tag search).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from storage.text import wikilinks
from storage.text.code import without_code
from storage.text.urls import without_addresses

__all__ = ["inline_tags", "note_tags", "with_parents"]

_TAG = re.compile(r"(?<![\w#&/])#([\w/-]+)")
_LETTER = re.compile(r"[^\W\d]")
_LINKS = re.compile(rf"{wikilinks.SOURCE}|\]\([^()\n]*\)")  # a Markdown link's (destination)


def inline_tags(text: str) -> list[str]:
    """The tags written in `text` outside code, links and addresses, in the order
    written, each once, without `#` and without a trailing `/`."""
    if "#" not in text:  # no tag: no code, links or addresses to blank out first
        return []
    readable = without_addresses(_without_links(without_code(text)))
    found = (m[1].strip("/") for m in _TAG.finditer(readable))
    return list(dict.fromkeys(tag for tag in found if _LETTER.search(tag)))


def note_tags(declared: Iterable[str], body: str) -> list[str]:
    """A note's tags: those it declares (its frontmatter's `tags`), then those written
    in its `body` (`inline_tags`), each nested tag with its parents, each once."""
    return with_parents([*declared, *inline_tags(body)])


def with_parents(tags: list[str]) -> list[str]:
    """`tags` with every parent of a nested tag (`a/b/c` → `a/b/c`, `a/b`, `a`), each once."""
    out: dict[str, None] = {}
    for tag in tags:
        parts = [p for p in tag.split("/") if p]
        for n in range(len(parts), 0, -1):
            out["/".join(parts[:n])] = None
    return list(out)


def _without_links(text: str) -> str:
    """`text` with each wikilink and Markdown link destination blanked (same offsets)."""
    return _LINKS.sub(lambda m: " " * len(m.group()), text)
