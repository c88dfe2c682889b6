"""Reply → Block Kit. The one place that knows how a bot answer looks in Slack.

Slack rejects a message whose section text passes 3,000 characters or that holds
more than 50 blocks (`invalid_blocks`), so long replies are split into sections
and, past 50 blocks, into several messages. Buttons always land in the last one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.events import Button, Reply

MAX_SECTION_CHARS = 3000
MAX_BLOCKS = 50
MAX_BUTTONS_PER_BLOCK = 25
MAX_BUTTON_LABEL = 75
MAX_BUTTON_VALUE = 2000
# The top-level `text` is only the notification line when blocks are present.
FALLBACK_CHARS = 300
ACTION_PREFIX = "bb:"

_FENCE = "```"
_ENTITIES = {"&amp;", "&lt;", "&gt;"}

Block = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SlackMessage:
    """One chat.postMessage / chat.update worth of content."""

    text: str
    blocks: tuple[Block, ...]

    def payload(self) -> dict[str, Any]:
        """The `text` + `blocks` arguments of the Web API call."""
        return {"text": self.text, "blocks": list(self.blocks)}


def escape(text: str) -> str:
    """Escape the three characters Slack's mrkdwn treats as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# A reply marks words `**like this**` (Markdown's bold: a search hit's matched words);
# mrkdwn's bold is `*like this*`.
_MARKED = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")


def bold_marks(text: str) -> str:
    """`text` with its `**marked**` words in mrkdwn's bold."""
    return _MARKED.sub(r"*\1*", text)


def split_text(text: str, limit: int) -> list[str]:
    """Cut escaped `text` into non-blank pieces of at most `limit` characters.

    Prefers paragraph breaks, then line breaks, then spaces (dropping only the
    break itself, so code keeps its indentation); never cuts an `&amp;`-style
    entity in half.
    """
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        cut, skip = _cut_point(rest, limit)
        pieces.append(rest[:cut])
        rest = rest[cut + skip :]
    pieces.append(rest)
    return [piece for piece in pieces if piece.strip()]


def _cut_point(text: str, limit: int) -> tuple[int, int]:
    window = text[:limit]
    for separator in ("\n\n", "\n", " "):
        index = window.rfind(separator)
        # A break in the first half would leave tiny pieces; cut hard instead.
        if index > limit // 2:
            return index, len(separator)
    amp = window.rfind("&", max(0, limit - 4))
    if amp > 0 and not any(text.startswith(e, amp) and amp + len(e) <= limit for e in _ENTITIES):
        return amp, 0
    return limit, 0


def encode_action_id(action: str, index: int) -> str:
    """`bb:<action>`; repeats within one actions block get `:<n>` (Slack wants them unique)."""
    return f"{ACTION_PREFIX}{action}" if index == 0 else f"{ACTION_PREFIX}{action}:{index}"


def decode_action_id(action_id: str) -> str | None:
    """The `Button.action` behind an action_id, or None when it is not one of ours."""
    if not action_id.startswith(ACTION_PREFIX):
        return None
    return action_id[len(ACTION_PREFIX) :].split(":", 1)[0] or None


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _button_blocks(buttons: tuple[Button, ...]) -> list[Block]:
    blocks: list[Block] = []
    for start in range(0, len(buttons), MAX_BUTTONS_PER_BLOCK):
        seen: dict[str, int] = {}
        elements: list[Block] = []
        for button in buttons[start : start + MAX_BUTTONS_PER_BLOCK]:
            index = seen.get(button.action, 0)
            seen[button.action] = index + 1
            label = (
                button.label if len(button.label) <= MAX_BUTTON_LABEL else button.label[:74] + "…"
            )
            element: Block = {
                "type": "button",
                "text": {"type": "plain_text", "text": label or button.action, "emoji": True},
                "action_id": encode_action_id(button.action, index),
                "value": button.value[:MAX_BUTTON_VALUE],
            }
            if button.style:
                element["style"] = button.style
            elements.append(element)
        blocks.append({"type": "actions", "elements": elements})
    return blocks


def _fallback(blocks: list[Block], reply: Reply) -> str:
    for block in blocks:
        if block["type"] == "section":
            text: str = block["text"]["text"]
            return text if len(text) <= FALLBACK_CHARS else text[: FALLBACK_CHARS - 1] + "…"
    if reply.buttons:
        return escape(" / ".join(button.label for button in reply.buttons))
    return escape(reply.notice or "…")


def render(reply: Reply) -> list[SlackMessage]:
    """Block Kit messages for one Reply: text sections, preview as code, buttons, notice.

    Returns no message for an empty reply. Every message respects Slack's limits.
    """
    blocks: list[Block] = [
        _section(piece) for piece in split_text(bold_marks(escape(reply.text)), MAX_SECTION_CHARS)
    ]
    if reply.preview:
        room = MAX_SECTION_CHARS - 2 * len(_FENCE) - 2
        for piece in split_text(escape(reply.preview), room):
            blocks.append(_section(f"{_FENCE}\n{piece}\n{_FENCE}"))
    blocks.extend(_button_blocks(reply.buttons))
    if reply.notice:
        notice = split_text(escape(reply.notice), MAX_SECTION_CHARS)
        if notice:
            blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": notice[0]}]})
    messages: list[SlackMessage] = []
    for start in range(0, len(blocks), MAX_BLOCKS):
        chunk = blocks[start : start + MAX_BLOCKS]
        messages.append(SlackMessage(text=_fallback(chunk, reply), blocks=tuple(chunk)))
    return messages


def plain_message(text: str) -> SlackMessage:
    """A one-section message, for short apologies when a richer reply failed."""
    return SlackMessage(text=escape(text), blocks=(_section(escape(text)),))
