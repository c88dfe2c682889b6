"""How what was read goes into the note: sections under the person's own words, a few
frontmatter fields, and one line for the person.

Read text is someone else's (a web page, a scanned receipt): it is kept as quoted
material. Wiki links and tags in it are defused, so a page cannot link itself into
the vault's graph or tag the note; the person's words above it stay exactly as sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from storage.text import wikilinks

# A section is added once: a job run again after a restart finds its marker line.
SOURCE_LINE = "Source: {label}"
CUT = "\n\n(cut here: the note would pass its size limit)"
_TAG = re.compile(r"(^|\s)#(?=[^\s#])")
_HEADING = re.compile(r"^(#{1,6})\s", re.M)


@dataclass(frozen=True, slots=True)
class Read:
    """What reading one link or file gave (or why it gave nothing)."""

    kind: str  # "link" | "photo" | "document" | "voice" | "audio" | "video"
    label: str  # the URL or the file's name
    section: str = ""  # Markdown to add under the person's words ("" when nothing)
    fields: Mapping[str, Any] = field(default_factory=dict)  # frontmatter to set
    told: str = ""  # a line for the person: what was read
    failed: str = ""  # why it could not be read ("" when it was)


def defused(text: str) -> str:
    """Someone else's text, made inert in an Obsidian vault: `[[links]]` and `#tags`
    shown as written but no longer links or tags; its headings pushed below ours."""
    text = wikilinks.inert(text)
    text = _TAG.sub(lambda m: m.group(1) + r"\#", text)
    return _HEADING.sub(lambda m: "#" * min(len(m.group(1)) + 2, 6) + " ", text)


def link_section(
    url: str,
    title: str | None,
    text: str,
    *,
    site: str | None = None,
    author: str | None = None,
    published: str | None = None,
    summary: str | None = None,
) -> str:
    """The summary (when a model wrote one) and the page's text, with where it came from."""
    about = " · ".join(filter(None, [site, author, published]))
    parts = []
    if summary:
        parts.append(f"## Summary\n\n{defused(summary.strip())}")
    heading = f"## From the page: {_one_line(title)}" if title else "## From the page"
    source = SOURCE_LINE.format(label=url) + (f" ({about})" if about else "")
    parts.append(f"{heading}\n\n{source}\n\n{defused(text.strip())}".rstrip())
    return "\n\n".join(parts)


def image_section(name: str, text: str, description: str | None, *, several: bool) -> str:
    heading = "## Text in the image" + (f" ({name})" if several else "")
    lines = [heading, "", SOURCE_LINE.format(label=name)]
    if description:
        lines += ["", f"*{defused(_one_line(description))}*"]
    if text.strip():
        lines += ["", defused(text.strip())]
    return "\n".join(lines)


def document_section(name: str, text: str) -> str:
    return f"## Text of {name}\n\n{SOURCE_LINE.format(label=name)}\n\n{defused(text.strip())}"


def transcript_section(
    name: str, text: str, language: str, *, heard_minutes: float | None = None
) -> str:
    """What a clip said, heard on this machine: under "## Transcript" (one per clip,
    named when the note has several, as its source line says which)."""
    about = f" (language: {language})" if language else ""
    cut = (
        f"\n\n(the first {heard_minutes:.0f} minutes; the rest was not heard)"
        if heard_minutes
        else ""
    )
    return (
        f"## Transcript\n\n{SOURCE_LINE.format(label=name)}{about}\n\n{defused(text.strip())}{cut}"
    )


def already_read(body: str, label: str) -> bool:
    """Whether the note holds this link's or file's section already."""
    return SOURCE_LINE.format(label=label) in body


def with_sections(body: str, reads: Sequence[Read], max_bytes: int | None = None) -> str:
    """The note's body with each new section added after what is there; within
    `max_bytes` (UTF-8) in all, the section that would pass it is cut short."""
    added = [r.section for r in reads if r.section and not already_read(body, r.label)]
    if not added:
        return body
    out = body.rstrip()
    for section in added:
        joined = f"{out}\n\n{section}"
        if max_bytes is not None and len(joined.encode()) + 1 > max_bytes:
            room = max_bytes - len(out.encode()) - len(CUT.encode()) - 4
            if room > 200:
                out = f"{out}\n\n{section.encode()[:room].decode(errors='ignore')}{CUT}"
            break
        out = joined
    return out + "\n"


def told(title: str, reads: Sequence[Read]) -> str:
    """One message for the person: what was read into the note, and what could not be."""
    done = [r.told for r in reads if r.told and not r.failed]
    failed = [r.failed for r in reads if r.failed]
    lines = []
    if done:
        lines.append(f"Added to “{title}”: " + "; ".join(done) + ".")
    lines += failed
    return "\n".join(lines)


def words(text: str) -> int:
    return len(text.split())


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())[:200]
