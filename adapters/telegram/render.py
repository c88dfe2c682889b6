"""Reply → Telegram: HTML messages within the length limit, and an inline keyboard.

Text is split *before* it is escaped and wrapped, so a cut can never land inside
a tag or an entity: each message opens and closes its own tags.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.events import Button, Reply

MAX_MESSAGE = 4096  # Bot API limit for sendMessage/editMessageText text
MAX_CALLBACK_DATA = 64  # bytes
BUTTONS_PER_ROW = 3
_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class _Block:
    text: str
    tag: str | None  # "i", "pre" or None for plain text


def _units(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji can be two)."""
    return len(text.encode("utf-16-le")) // 2


# A reply marks words `**like this**` (Markdown's bold: a search hit's matched words);
# plain text shows them in <b>. A pair cut apart by a message break stays as typed.
_MARKED = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")


def _escaped_units(char: str) -> int:
    # A `**` pair (4 units) becomes <b></b> (7): an asterisk is counted as 2, so a
    # piece measured before the marks become tags still fits once they have.
    return 2 if char == "*" else _units(html.escape(char, quote=False))


def _wrap(text: str, tag: str | None) -> str:
    body = html.escape(text, quote=False)
    if tag is None:
        return _MARKED.sub(r"<b>\1</b>", body)
    return f"<{tag}>{body}</{tag}>"


def _cut(text: str, budget: int) -> int:
    """How many characters of `text` fit in `budget` once escaped, cut at a natural break."""
    used = 0
    end = 0
    for end, char in enumerate(text):  # noqa: B007 - `end` is read after the loop
        used += _escaped_units(char)
        if used > budget:
            break
    else:
        return len(text)
    # Prefer a paragraph, then a line, then a word boundary in the second half of the piece.
    for mark in ("\n\n", "\n", " "):
        at = text.rfind(mark, 0, end)
        if at > end // 2:
            return at + len(mark)
    return end


def _fits(text: str, tag: str | None, limit: int) -> bool:
    return _units(_wrap(text, tag)) <= limit


def render_text(reply: Reply, limit: int = MAX_MESSAGE) -> list[str]:
    """The reply as HTML messages, each at most `limit` UTF-16 units long.

    Order: notice (italic), text, preview (a <pre> block). An empty reply renders
    as no message at all.
    """
    blocks = [
        _Block(text, tag)
        for text, tag in ((reply.notice, "i"), (reply.text, None), (reply.preview, "pre"))
        if text and text.strip()
    ]
    messages: list[str] = []
    current = ""
    for block in blocks:
        rest = block.text
        overhead = _units(_wrap("", block.tag))
        while rest:
            separator = _SEPARATOR if current else ""
            budget = limit - _units(current) - _units(separator) - overhead
            taken = _cut(rest, budget) if budget > 0 else 0
            if current and taken < len(rest) and (_fits(rest, block.tag, limit) or taken < 500):
                # A block that does not fit starts a fresh message when it would fit there
                # whole, rather than leave a sliver of it at the end of this one.
                messages.append(current)
                current = ""
                continue
            piece, rest = rest[:taken], rest[taken:]
            current += separator + _wrap(piece, block.tag)
            if rest:
                messages.append(current)
                current = ""
    if current:
        messages.append(current)
    return messages


def rendered(reply: Reply) -> tuple[list[str], InlineKeyboardMarkup | None]:
    """The reply as Telegram shows it: its HTML messages (`render_text`) and the
    keyboard (`keyboard`) that goes on the last of them."""
    return render_text(reply), keyboard(reply.buttons)


def callback_data(button: Button) -> str:
    """`action:value`, checked against Telegram's 64-byte limit."""
    data = f"{button.action}:{button.value}"
    if len(data.encode()) > MAX_CALLBACK_DATA:
        raise ValueError(f"button {button.label!r}: callback_data {data!r} is over 64 bytes")
    return data


def parse_callback_data(data: str | None) -> tuple[str, str] | None:
    """Back from `action:value` to (action, value); None for data we did not make."""
    if not data or ":" not in data:
        return None
    action, value = data.split(":", 1)
    return (action, value) if action else None


def keyboard(buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
    """Buttons as an inline keyboard, a few per row; None when there are none."""
    if not buttons:
        return None
    cells = [
        InlineKeyboardButton(b.label, callback_data=callback_data(b), style=b.style)
        for b in buttons
    ]
    rows = [cells[i : i + BUTTONS_PER_ROW] for i in range(0, len(cells), BUTTONS_PER_ROW)]
    return InlineKeyboardMarkup(rows)
