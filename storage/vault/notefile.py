"""A note's file format: YAML frontmatter between `---` fences, then the Markdown body.

Parsing never raises on what a person may have typed by hand: broken or non-mapping
YAML gives empty fields, the body intact and a description of the problem.
The file is `---\\n<yaml>---\\n\\n<body>\\n`; the blank line after the fence and the
final newline are the file's, not the body's, so a body round-trips exactly.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import yaml

from storage.entry import Entry
from storage.errors import StorageError
from storage.text.code import without_code
from storage.text.dates import FIRST_DAY, LAST_DAY, frontmatter_dates, frontmatter_time
from storage.vault import schema

_OPEN = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_HEADING = re.compile(r"#[ \t]+(.+?)[ \t#]*")
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Writes what Obsidian and people expect: ISO 8601 timestamps with a `T`, and
    multi-line text as `|` blocks, and no YAML anchors (a person edits this by hand)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_datetime(dumper: yaml.SafeDumper, value: datetime) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


# Characters YAML reads as line breaks: written raw (allow_unicode) they would come back
# as spaces; in double quotes the emitter escapes them.
_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value.rstrip("\n") else None
    if any(ch in value for ch in _YAML_BREAKS):
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


class _PyDumper(yaml.SafeDumper):
    """`_Dumper` on the pure-Python emitter, for text libyaml would escape."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


for _dumper in (_Dumper, _PyDumper):
    _dumper.add_representer(datetime, _represent_datetime)
    _dumper.add_representer(str, _represent_str)


@dataclass(frozen=True, slots=True)
class ParsedNote:
    fields: dict[str, Any]
    body: str
    error: str | None = None  # why the frontmatter could not be used
    raw_frontmatter: str | None = None  # the fenced block verbatim, kept when it is broken


def decode_note(data: bytes, path: str) -> str:
    """The text of a note's bytes; a clear error when they are not UTF-8 (for writes:
    a note is never rewritten from a lossy reading)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StorageError(not_utf8(path, exc)) from None


def read_text(data: bytes, path: str) -> tuple[str, str | None]:
    """The text of a note's bytes for reading and search, and what was wrong with them:
    bytes that are not UTF-8 become U+FFFD, so a note with one bad byte (saved in
    Latin-1 by an old editor) is still found by all its other words."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", "replace"), not_utf8(path, exc)


def not_utf8(path: str, exc: UnicodeDecodeError) -> str:
    """What to tell the owner about a note that is not UTF-8."""
    return f"{path!r} is not UTF-8 text (byte {exc.start}); save it as UTF-8 to use it"


def _strip_file_newlines(rest: str, crlf: bool) -> str:
    # The file's own line breaks around the body; CRLF only in files saved that way,
    # so a body brainbot wrote (always LF) round-trips exactly, even ending in "\r".
    newline = "\r\n" if crlf else "\n"
    rest = rest.removeprefix(newline)
    return rest.removesuffix(newline)


def parse_note(text: str) -> ParsedNote:
    """Split a note into frontmatter fields and body; never raises."""
    text = text.removeprefix("\ufeff")
    opening = _OPEN.match(text)
    crlf = text.endswith("\r\n") if opening is None else opening.group().endswith("\r\n")
    whole = text.removesuffix("\r\n" if crlf else "\n")
    if not opening:
        return ParsedNote({}, whole)
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return ParsedNote({}, whole, "the frontmatter's closing '---' is missing")
    block = text[opening.end() : closing.start()]
    raw = text[: closing.end()]
    body = _strip_file_newlines(text[closing.end() :], crlf)
    try:
        loaded = yaml.load(block, Loader=_Loader)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        problem = " ".join(str(exc).split())
        return ParsedNote({}, body, f"the frontmatter is not valid YAML: {problem}", raw)
    if loaded is None:
        return ParsedNote({}, body)
    if not isinstance(loaded, dict):
        kind = type(loaded).__name__
        return ParsedNote({}, body, f"the frontmatter is a {kind}, not a set of fields", raw)
    return ParsedNote({str(key): value for key, value in loaded.items()}, body)


def plain(value: Any) -> Any:
    """A value YAML can store: mappings become dicts, tuples and sets lists; anything
    that is not text, a number, a date, a list or a mapping is refused."""
    if value is None or isinstance(value, str | bool | int | float | date):
        return value
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(item) for item in value), key=str)
    raise StorageError(f"a field value of type {type(value).__name__} cannot be stored in a note")


def render_frontmatter(fields: Mapping[str, Any]) -> str:
    """The fenced YAML block for `fields`, keys in the given order."""
    if not fields:
        return "---\n---\n"
    values = plain(fields)
    block = _dump(values, _Dumper)
    if "\\U" in block:
        # libyaml escapes characters beyond U+FFFF (emoji) even with allow_unicode;
        # the pure-Python emitter writes them as UTF-8, as Obsidian shows them.
        block = _dump(values, _PyDumper)
    return f"---\n{block}---\n"


def _dump(values: Any, dumper: type[yaml.SafeDumper]) -> str:
    return yaml.dump(
        values,
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=2**30,  # never fold a long value onto lines that could look like a fence
    )


def render_note(fields: Mapping[str, Any], body: str) -> str:
    """The whole file for a note with these fields and this body."""
    return join_note(render_frontmatter(fields), body)


def join_note(frontmatter: str, body: str) -> str:
    """A fenced frontmatter block (kept verbatim) followed by the body."""
    return frontmatter + (f"\n{body}\n" if body else "")


def note_title(fields: Mapping[str, Any], body: str, stem: str) -> str:
    """The frontmatter `title`, else the first `# heading` outside code blocks (and not a
    template's `{{title}}`), else the file name's stem."""
    title = fields.get("title")
    if isinstance(title, str | int | float) and str(title).strip():
        return str(title)
    return first_heading(body) or stem


def first_heading(body: str) -> str | None:
    """The first level-1 heading of a Markdown body that is text a person wrote: code
    examples and template placeholders do not count."""
    for line, masked in zip(body.split("\n"), without_code(body).split("\n"), strict=True):
        heading = _HEADING.fullmatch(line.rstrip("\r"))
        if heading and masked.strip() and "{{" not in heading.group(1):
            return heading.group(1)
    return None


DATE_FIELDS = ("created", "updated")  # the dates the index reads from every note


def note_time(fields: Mapping[str, Any], name: str) -> datetime | None:
    """A note's `created` or `updated` as an aware UTC datetime, its wall time read in
    the note's own `timezone` (see storage.vault.schema); None when absent or an invalid
    date (storage.text.dates.frontmatter_time: outside the dates kept)."""
    return frontmatter_time(fields.get(name), schema.note_zone(fields))


@dataclass(frozen=True, slots=True)
class NoteDates:
    """A note's dates as the index reads them: `created` and `updated` (each as
    `note_time` reads it) and its `due` day (storage.text.dates.frontmatter_day)."""

    created: datetime | None
    updated: datetime | None
    due: date | None


def note_dates(fields: Mapping[str, Any]) -> NoteDates:
    """A note's dates (`NoteDates`) from its frontmatter, its zone read once for all."""
    zone = schema.note_zone(fields)
    return NoteDates(
        *frontmatter_dates(fields.get("created"), fields.get("updated"), fields.get("due"), zone)
    )


def timestamp_problem(fields: Mapping[str, Any]) -> str | None:
    """Why a note's `created` or `updated` cannot be used, as "invalid date" for the
    owner to fix (the note is indexed without it); None when they are fine or absent."""
    bad = [
        f"{name}: {str(fields[name])[:40]!r}"
        for name in DATE_FIELDS
        if fields.get(name) not in (None, "") and note_time(fields, name) is None
    ]
    if not bad:
        return None
    return (
        f"invalid date ({', '.join(bad)}): read as absent; "
        f"write a date from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}"
    )


def content_hash(data: bytes) -> str:
    """The token for optimistic edits: sha256 of a file's bytes."""
    return hashlib.sha256(data).hexdigest()


def entry_from_bytes(rel: str, data: bytes) -> Entry:
    """The Entry for a note's bytes; bytes that are not UTF-8 are read as U+FFFD and
    said in `encoding_error`."""
    text, encoding_error = read_text(data, rel)
    parsed = parse_note(text)
    folder, slash, _ = rel.partition("/")
    stem = rel.rsplit("/", 1)[-1][: -len(".md")]
    return Entry(
        path=rel,
        category=folder if slash else "",
        title=note_title(parsed.fields, parsed.body, stem),
        fields=parsed.fields,
        body=parsed.body,
        content_hash=content_hash(data),
        frontmatter_error=parsed.error,
        encoding_error=encoding_error,
    )


def entry_or_none(rel: str, data: bytes) -> Entry | None:
    """The entry, or None when these bytes are no readable note."""
    try:
        return entry_from_bytes(rel, data)
    except StorageError:
        return None
