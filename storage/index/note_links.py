"""Links between notes: wikilinks and Markdown links to `.md` files, for backlinks.

A link keeps its target as written, reduced to comparable keys, and is resolved
when someone asks for backlinks; so a link written before its target existed
starts to count the moment the target appears. Keys are slug-like: case, accents,
spaces, hyphens and underscores do not matter, which matches how Obsidian finds
`[[Tea Ceremony]]` and how the vault names `tea-ceremony.md`.

A link may have a type (`- works_at [[Acme]]`, `employer:: [[Acme]]`: see
storage.index.relations); which note a link points at is decided in one place,
`LINKS_TO`, for backlinks, the `linked:` search and the weekly review alike.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from storage.index.relations import relation_at, typed_spans
from storage.index.tokens import fold
from storage.text.code import without_code
from storage.vault.markdown import SCHEME, links

_NOT_KEY = re.compile(r"[\W_]+")
CONTEXT_CHARS = 200


def name_key(name: str) -> str:
    """The comparable form of a note name: `Tea Ceremony`, `tea-ceremony` → `tea-ceremony`."""
    return _NOT_KEY.sub("-", fold(name)).strip("-")


def path_key(path: str) -> str:
    """The comparable form of a vault path: `Projects/Q3 Plan.md` → `projects/q3-plan`."""
    if path.lower().endswith(".md"):
        path = path[:-3]
    return "/".join(name_key(part) for part in path.split("/") if part)


@dataclass(frozen=True, slots=True)
class Link:
    """One link found in a note.

    `key` is the target's name key; `path` (when the link names folders) is the
    target's path key, matched as a suffix of the target's path; `alt` is a second
    exact reading of a Markdown link (relative to the vault root instead of the note);
    `relation` is its type as written, None for a plain link.
    """

    key: str
    path: str | None
    alt: str | None
    context: str
    relation: str | None = None


# Whether the link row `l` points at the note whose keys (see `target_keys`) are the
# SQL expressions {stem} (its file name's), {title} and {path}: by file name, or by
# title when the link names no folder; a link naming folders must match the end of
# the note's path.
LINKS_TO = (
    "((l.target_key = {stem} OR (l.target_path IS NULL AND l.target_key = {title}))"
    " AND (l.target_path IS NULL OR l.target_path = {path} OR l.target_alt = {path}"
    " OR {path} LIKE '%/' || l.target_path))"
)


def target_keys(path: str, title: str | None) -> tuple[str, str, str]:
    """The keys `LINKS_TO` compares for the note at `path` called `title`: its file
    name's, its title's ("" without one) and its path's."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    return name_key(stem), name_key(title) if title else "", path_key(path)


def _context(body: str, start: int, end: int) -> str:
    line_start = body.rfind("\n", 0, start) + 1
    line_end = body.find("\n", end)
    line = body[line_start : line_end if line_end >= 0 else len(body)].strip()
    return line if len(line) <= CONTEXT_CHARS else line[: CONTEXT_CHARS - 1] + "…"


def _wikilink(target: str) -> tuple[str, str | None, str | None] | None:
    target = target.strip().strip("/")
    if not target:
        return None
    key = name_key(posixpath.basename(target).removesuffix(".md"))
    return (key, path_key(target) if "/" in target else None, None) if key else None


def _markdown_link(target: str, source: str) -> tuple[str, str | None, str | None] | None:
    target = target.strip("<>").split("#", 1)[0]
    if not target or SCHEME.match(target):
        return None
    target = unquote(target)
    if not target.lower().endswith(".md"):
        return None
    if target.startswith("/"):
        resolved, alt = posixpath.normpath(target.lstrip("/")), None
    else:
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
        alt = None if target.startswith(".") else posixpath.normpath(target)
    if resolved.startswith("..") and alt is None:
        return None
    key = name_key(posixpath.basename(target)[:-3])
    if not key:
        return None
    exact = None if resolved.startswith("..") else path_key(resolved)
    alt_key = path_key(alt) if alt and alt != resolved else None
    return key, exact or alt_key, alt_key if exact else None


def _read_links(body: str, source: str) -> Iterator[tuple[str, Link]]:
    """Each link of `body` (the note at `source`) outside code, with its target as
    written and as read (keys, type, the line holding it); one pass for code."""
    if "[" not in body:
        return
    masked = without_code(body)
    spans = typed_spans(masked)
    for link in links(body, masked):
        if link.kind == "wiki":
            written, parsed = link.wiki_name.strip(), _wikilink(link.wiki_name)
        else:
            written, parsed = link.target.strip("<>"), _markdown_link(link.target, source)
        if parsed:
            relation = relation_at(spans, link.start, link.end)
            yield unquote(written), Link(*parsed, _context(body, link.start, link.end), relation)


def extract_links(body: str, source: str) -> list[Link]:
    """Every distinct link in `body` of the note at vault path `source`, outside code
    (the grammar of storage.vault.markdown, which relinking reads too), each with its
    type; the same target linked with two types (or typed and plain) is two links."""
    found: dict[tuple[str, str | None, str | None, str | None], Link] = {}
    for _, link in _read_links(body, source):
        found.setdefault((link.key, link.path, link.alt, link.relation), link)
    return list(found.values())


def written_links(body: str, source: str) -> list[tuple[str, Link]]:
    """Every distinct link of `body` (the note at `source`), each with its target as
    written (`Tea Ceremony`, `../people/ada.md`): a note's outgoing links, as
    `extract_links` reads them, with the type of the first writing of each."""
    found: dict[tuple[str, str | None, str | None], tuple[str, Link]] = {}
    for written, link in _read_links(body, source):
        found.setdefault((link.key, link.path, link.alt), (written, link))
    return list(found.values())


def reaches(link: Link, path: str, title: str | None) -> bool:
    """Whether `link` leads to the note at `path` titled `title`: what the backlinks
    query (storage.index.lookups) asks of the links table, for one link in hand."""
    stem, title_key, where = target_keys(path, title)
    named = link.key == stem or (link.path is None and bool(title_key) and link.key == title_key)
    placed = link.path is None or where in (link.path, link.alt) or where.endswith("/" + link.path)
    return named and placed
