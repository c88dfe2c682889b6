"""What `update_entry` and `get_entry` do with one section of a note (`## Tasks`):
the note's new text for a change to it, and what kind of change that is.

Text added to a section (appended, put under its heading, or a missing section made
with it) overwrites nothing: for the at-once rules (bot.tools.change_kinds) it is an
append, as adding to the end of the note is. New text for a section that had some is
a replacement, unless it only ticks its tasks."""

from __future__ import annotations

from dataclasses import dataclass

from bot.tools.context import ToolError
from storage import Entry
from storage.vault import SectionError, edited, find_section, headings, only_adds, prepended


@dataclass(frozen=True, slots=True)
class BodyChange:
    """The note's text after an update, and how the change reads to the at-once rules:
    `replaced` is new text that may rewrite what is there (compared with the note),
    `added` is text that is only added."""

    body: str | None  # the note's new text; None keeps it
    replaced: str | None = None
    added: str | None = None


def body_change(
    current: str,
    body: str | None,
    append: str | None,
    prepend: str | None = None,
    section: str | None = None,
) -> BodyChange:
    """What `update_entry`'s text arguments make of the note's text `current`: with a
    `section`, `body` is that section's new content and `append`/`prepend` go to its
    end/top (a missing section is made at the end of the note); without one, they act
    on the whole text (prepend: under its `# Title` line, when it starts with one)."""
    if section is not None and not section.strip(" #"):
        raise ToolError("section must name a heading, e.g. 'Tasks'")
    if section is None and not prepend:
        if append and append.strip():
            base = body if body is not None else current
            return BodyChange(base.rstrip() + "\n\n" + append.strip() + "\n", body, append)
        return BodyChange(body, body, None)
    if section is not None:
        if body is None and not (append and append.strip()) and not (prepend and prepend.strip()):
            raise ToolError("with a section, give its new text (body), append or prepend")
        try:
            new = edited(current, section, replace=body, append=append, prepend=prepend)
        except SectionError as exc:
            raise ToolError(str(exc)) from exc
    else:
        if body is not None:
            raise ToolError("give either body (the whole new text) or prepend, not both")
        new = prepended(current, str(prepend))
        new = new.rstrip() + "\n\n" + append.strip() + "\n" if append and append.strip() else new
    if only_adds(current, new):
        given = [t.strip() for t in (prepend, body, append) if t and t.strip()]
        return BodyChange(new, None, "\n".join(given))
    return BodyChange(new, new, None)


def section_of(entry: Entry, name: str) -> tuple[str, str]:
    """The heading and the text (heading line included) of `entry`'s section `name`;
    ToolError naming the headings the note has when none (or several) is called so."""
    try:
        found = find_section(entry.body, name)
    except SectionError as exc:
        raise ToolError(f"{entry.path}: {exc}") from exc
    if found is None:
        outline = headings(entry.body)
        has = f"its headings: {', '.join(outline)}" if outline else "it has no headings"
        raise ToolError(f"no heading {name.strip()!r} in {entry.path}; {has}")
    return found.heading, found.text(entry.body)
