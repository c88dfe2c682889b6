"""Split a note into the passages that get one embedding each.

Embedding models read a few hundred words at most, and one vector for a long note
blurs its topics. A note is cut at headings, then at paragraphs, into chunks of
bounded size; every chunk starts with the note's title (and its section heading),
so a passage about "the budget" still knows it belongs to "Q3 planning".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHUNK_CHARS = 1200
MAX_CHUNKS = 64  # a huge note is still found by keywords; its tail is not embedded
_HEADING = re.compile(r"^#{1,6}\s+(.*\S)\s*$")
_BLANK_LINES = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One passage: the text to embed and where its section starts in the body."""

    text: str
    start: int


def _sections(body: str) -> list[tuple[str, str, int]]:
    """(heading, text, offset) per section; text before the first heading has no heading."""
    sections: list[tuple[str, str, int]] = []
    heading, start, offset = "", 0, 0
    for line in body.splitlines(keepends=True):
        match = _HEADING.match(line)
        if match:
            sections.append((heading, body[start:offset], start))
            heading, start = match.group(1), offset + len(line)
        offset += len(line)
    sections.append((heading, body[start:], start))
    return [s for s in sections if s[1].strip() or s[0]]


def _pieces(text: str, limit: int) -> list[str]:
    """Paragraphs packed up to `limit` characters; a longer paragraph is cut at spaces."""
    out: list[str] = []
    current = ""
    for paragraph in _BLANK_LINES.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        while len(paragraph) > limit:
            cut = paragraph.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                out.append(current)
                current = ""
            out.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if current and len(current) + len(paragraph) + 2 > limit:
            out.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        out.append(current)
    return out


def chunk_note(title: str, body: str, *, limit: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """The chunks of one note; always at least one (the title alone for an empty note)."""
    chunks: list[Chunk] = []
    for heading, text, start in _sections(body):
        prefix = f"{title}\n{heading}" if heading and heading != title else title
        for piece in _pieces(text, limit) or [""]:
            found = body.find(piece[:60], start) if piece else -1
            chunks.append(Chunk(f"{prefix}\n\n{piece}".strip(), found if found >= 0 else start))
        if len(chunks) >= MAX_CHUNKS:
            return chunks[:MAX_CHUNKS]
    return chunks or [Chunk(title, 0)]
