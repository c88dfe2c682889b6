"""Where Markdown is code: nothing in code is a link, a name, a heading or an address to
fetch, as in Obsidian. Code is blanked (replaced by spaces, line breaks kept), so what is
looked for in the rest is found at the same offsets as in the text.

Code is a fenced block (``` or ~~~, indented up to three spaces, to its closing fence
or the end of the text), inline code (`like this`, any run of backticks closed by the
next run of the same length on the line), or an indented code block: lines indented
four spaces or a tab after a blank line, unless they continue a list (a nested list
item is no code).
"""

from __future__ import annotations

import re

__all__ = ["without_code"]

# Possessive runs: a line of 100,000 backticks is one failed try, not one per length.
_FENCE = re.compile(
    r"^[ \t]{0,3}(`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^[ \t]{0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S
)
_TICKS = re.compile(r"`+")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def without_code(text: str) -> str:
    """`text` with every kind of code blanked out, the same length, so that what is
    looked for in it is found where it is not code and at the same offsets."""
    text = _FENCE.sub(_blank, text)
    text = _indented_blanked(text)
    return _inline_code_blanked(text) if "`" in text else text


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def _inline_code_blanked(text: str) -> str:
    """`text` with its code spans blanked: a run of backticks opens one, closed by the
    next run of the same length on the line (CommonMark's rule, within one line).
    Each run is looked at once, where a pattern would read on from every backtick."""
    chars = list(text)
    for line in re.finditer(r"[^\n]*`[^\n]*", text):
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, line.start(), line.end())]
        following: list[int | None] = [None] * len(runs)
        last: dict[int, int] = {}  # run length → the index of the nearest such run after
        for n in range(len(runs) - 1, -1, -1):
            length = runs[n][1] - runs[n][0]
            following[n] = last.get(length)
            last[length] = n
        n = 0
        while n < len(runs):
            closer = following[n]
            if closer is None:
                n += 1  # no closing run: these backticks are plain text
                continue
            start, end = runs[n][0], runs[closer][1]
            chars[start:end] = " " * (end - start)
            n = closer + 1
    return "".join(chars)


def _indented_blanked(text: str) -> str:
    lines = text.split("\n")
    in_code = False
    in_list = False  # the lines since the last blank line belong to a list
    after_blank = True
    for n, line in enumerate(lines):
        blank = not line.strip()
        if in_code and (blank or _INDENTED.match(line)):
            lines[n] = " " * len(line)
            continue
        in_code = False
        if blank:
            after_blank = True
            continue
        if after_blank and _INDENTED.match(line) and not in_list:
            in_code = True
            lines[n] = " " * len(line)
            continue
        if _LIST_ITEM.match(line):
            in_list = True
        elif after_blank and not _INDENTED.match(line):
            in_list = False
        after_blank = False
    return "\n".join(lines)
