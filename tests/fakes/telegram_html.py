"""Telegram's HTML parse mode, checked as strictly as the Bot API checks it.

Used by the fake Bot API (a failure becomes 400 "can't parse entities") and by
render tests directly.
"""

from __future__ import annotations

import html
import re

_HTML_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a"}
    | {"code", "pre", "blockquote", "tg-emoji"}
)
_ENTITY = re.compile(r"&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")
_TAG = re.compile(r"<(/?)([a-z-]+)((?:\s[^<>]*)?)>")


class CantParseEntities(ValueError):
    """What the Bot API reports as "Bad Request: can't parse entities: ..."."""


def visible_text(text: str) -> str:
    """Check Telegram HTML and return the text a user sees (tags gone, entities decoded)."""
    stack: list[str] = []
    out: list[str] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char == "<":
            tag = _TAG.match(text, pos)
            if tag is None:
                raise CantParseEntities(f"can't parse entities: unexpected '<' at offset {pos}")
            closing, name = tag.group(1) == "/", tag.group(2)
            if name not in _HTML_TAGS:
                raise CantParseEntities(f'can\'t parse entities: Unsupported start tag "{name}"')
            if closing:
                if not stack or stack.pop() != name:
                    raise CantParseEntities(f'can\'t parse entities: Unexpected end tag "{name}"')
            else:
                stack.append(name)
            pos = tag.end()
        elif char == "&":
            entity = _ENTITY.match(text, pos)
            if entity is None:
                raise CantParseEntities(f"can't parse entities: unescaped '&' at offset {pos}")
            out.append(html.unescape(entity.group(0)))
            pos = entity.end()
        elif char == ">":
            raise CantParseEntities(f"can't parse entities: unescaped '>' at offset {pos}")
        else:
            out.append(char)
            pos += 1
    if stack:
        raise CantParseEntities(f"can't parse entities: Can't find end tag for {stack[-1]}")
    return "".join(out)


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the way Telegram counts message length."""
    return len(text.encode("utf-16-le")) // 2
