"""A note's sections: a heading and what is under it, to the next heading of the same
or a higher level (so a `## Tasks` section holds its `### Someday` subsection).

A heading is an ATX heading (`## Tasks`, up to three spaces before the `#`s) outside
code: a `# comment` in a fenced block is no heading (storage.text.code says what
code is). A heading is named as Obsidian's heading links name it (`[[Note#Tasks]]`):
without case or extra spaces; `Week 1#Tasks` is the `Tasks` under `Week 1`, for a note
that has several. Setext headings (text underlined with `===`) are not read.

Pure functions over a note's body (the text after its frontmatter): the vault and the
tools decide what to do with what they return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from storage.text.code import without_code

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_CLOSING = re.compile(r"[ \t]+#+[ \t]*$")
_LEVEL_PREFIX = re.compile(r"^\s*(#{1,6})\s+")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
NEW_SECTION_LEVEL = 2  # a heading made for a section that was missing: `## Name`


class SectionError(ValueError):
    """A section that cannot be told: none of that name, or several (`choices` lists
    the headings a caller may name instead)."""

    def __init__(self, message: str, choices: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.choices = choices


@dataclass(frozen=True, slots=True)
class Section:
    """One heading and the span of the body it rules."""

    heading: str  # its text as written, without the `#`s
    level: int
    start: int  # where its heading line begins
    content_start: int  # just after its heading line
    end: int  # where the next heading of the same or a higher level begins

    def text(self, body: str) -> str:
        """The section as written: its heading line and everything under it."""
        return body[self.start : self.end].rstrip("\n")

    def content(self, body: str) -> str:
        """What is under the heading, without the heading line."""
        return body[self.content_start : self.end]


def sections(body: str) -> list[Section]:
    """Every section of `body`, in the order written."""
    masked = without_code(body)
    found: list[tuple[str, int, int, int]] = []  # heading, level, start, content_start
    offset = 0
    for line in masked.splitlines(keepends=True):
        match = _HEADING.match(line)
        if match:
            original = body[offset : offset + len(line)].rstrip("\r\n")
            text = _CLOSING.sub("", original[match.end() :]).strip()
            found.append((text, len(match.group(1)), offset, offset + len(line)))
        offset += len(line)
    # Each section ends where the next heading of its level or higher begins: the
    # headings still open are closed by each new one (one pass, however many).
    ends = [len(body)] * len(found)
    open_ones: list[int] = []
    for i, (_, level, start, _) in enumerate(found):
        while open_ones and found[open_ones[-1]][1] >= level:
            ends[open_ones.pop()] = start
        open_ones.append(i)
    return [Section(t, lv, st, cs, end) for (t, lv, st, cs), end in zip(found, ends, strict=True)]


def heading_key(name: str) -> str:
    """How a heading is compared: no case, no leading `#`s, spaces collapsed."""
    return " ".join(_LEVEL_PREFIX.sub("", name).strip().lstrip("#").split()).casefold()


def find_section(body: str, name: str) -> Section | None:
    """The section `name` names (SectionError when several do), or None."""
    all_sections = sections(body)
    key = heading_key(name)
    matches = [s for s in all_sections if heading_key(s.heading) == key]
    if not matches and "#" in key:  # `Parent#Child`, as Obsidian writes nested headings
        *parents, last = [part for part in key.split("#") if part.strip()]
        within = (0, len(body))
        for parent in parents:
            outer = [
                s
                for s in all_sections
                if heading_key(s.heading) == heading_key(parent)
                and within[0] <= s.start < within[1]
            ]
            if len(outer) != 1:
                return None
            within = (outer[0].content_start, outer[0].end)
        matches = [
            s
            for s in all_sections
            if heading_key(s.heading) == heading_key(last) and within[0] <= s.start < within[1]
        ]
    if len(matches) > 1:
        raise SectionError(
            f"{len(matches)} headings are called {name!r}; name the one above it too, "
            f"as in 'Parent#{matches[0].heading}'",
            tuple(headings(body)),
        )
    return matches[0] if matches else None


def headings(body: str) -> list[str]:
    """The body's headings as a reader sees them in an outline (`## Tasks`)."""
    return [f"{'#' * s.level} {s.heading}" for s in sections(body)]


def _joined(before: str, text: str, after: str) -> str:
    """`text` between `before` and `after`: a list item next to a list item stays in
    its list (one newline), anything else gets a blank line around it."""
    text = text.strip("\n")
    parts = before.rstrip("\n")
    if parts:
        last = parts.rsplit("\n", 1)[-1]
        close = _LIST_ITEM.match(last) and _LIST_ITEM.match(text.split("\n", 1)[0])
        parts += "\n" if close or _HEADING.match(last) else "\n\n"
    parts += text + "\n"
    rest = after.lstrip("\n")
    if rest:
        first = rest.split("\n", 1)[0]
        close = _LIST_ITEM.match(text.rsplit("\n", 1)[-1]) and _LIST_ITEM.match(first)
        parts += "" if close else "\n"
    return parts + rest


def edited(
    body: str,
    name: str,
    *,
    replace: str | None = None,
    append: str | None = None,
    prepend: str | None = None,
) -> str:
    """`body` with the section `name`'s content replaced, or text appended to its end
    or put right under its heading. A missing section is made at the end of the note
    (`## name`, or the level `name` writes: `### name`) holding the text. SectionError
    when several headings have that name."""
    section = find_section(body, name)
    if section is None:
        level = _LEVEL_PREFIX.match(name)
        marks = level.group(1) if level else "#" * NEW_SECTION_LEVEL
        heading = f"{marks} {_LEVEL_PREFIX.sub('', name).strip().split('#')[-1].strip()}"
        text = "\n\n".join(t.strip("\n") for t in (prepend, replace, append) if t)
        return _joined(body, heading + "\n" + text if text else heading, "")
    head = body[: section.content_start]
    if not head.endswith("\n"):
        head += "\n"
    content = section.content(body)
    tail = body[section.end :]
    if replace is not None:
        content = replace.strip("\n") + "\n" if replace.strip() else ""
    if prepend:
        content = _joined("", prepend, content)
    if append:
        content = _joined(content, append, "")
    if tail and content and not content.endswith("\n\n"):
        content = content.rstrip("\n") + "\n\n"
    return head + content + tail


def only_adds(old: str, new: str) -> bool:
    """Whether `new` is `old` with text added at one place and nothing of `old` removed
    or rewritten (blank lines at the end do not count)."""
    old, new = old.rstrip("\n"), new.rstrip("\n")
    if old == new:
        return False
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix + suffix >= len(old)


def prepended(body: str, text: str) -> str:
    """`body` with `text` at its top: under its `# Title` line when it begins with one."""
    first = next(iter(sections(body)), None)
    if first is not None and first.level == 1 and not body[: first.start].strip():
        after = body[first.content_start :]
        gap = "\n" if after.startswith("\n") else ""  # the blank line under the title stays
        return body[: first.content_start] + gap + _joined("", text, after)
    return _joined("", text, body)
