"""Text Postgres can hold: the one place where a note's text is made fit to store.

A note may hold anything UTF-8 allows, and Postgres refuses some of it: NUL
(`\\x00`) in any text column ("PostgreSQL text fields cannot contain NUL") and in
JSONB, where JSON's escape `\\u0000` is refused too. Lone surrogates (U+D800 to
U+DFFF) are no characters at all: the driver cannot encode them as UTF-8. Decoding a
note's bytes never makes them (bad bytes become U+FFFD, see storage.vault.notefile),
and libyaml refuses them as escapes, but a frontmatter read by another YAML loader,
or a value from anywhere else, may carry one. Every other code point, noncharacters
such as U+FFFE included, Postgres stores as it is.

Each refused character becomes U+FFFD, the mark a reader already knows from bytes
that are not UTF-8, rather than nothing: `hello\\0world` stays two words
(U+FFFD is no word character) and the passage keeps its length, so offsets into the
body (a passage's start, a snippet) still point where they did. Only what the index
stores changes; the note on disk stays as it is.

What Postgres refuses for other reasons (a tag longer than an index row may be) is
the note's fault as well; `refusal` tells such an error from the database's own
trouble, so that the writers leave that one note out, with why, and go on
(storage.index.indexer.write_each).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

import psycopg
from sqlalchemy.exc import StatementError

from storage.entry import Entry

REPLACEMENT = "\ufffd"
_REFUSED = re.compile("[\x00\ud800-\udfff]")
# The SQLSTATE classes of a statement refused for what it was given: a data exception,
# a constraint, a limit (an index row's size). Any other error (a lost connection, a
# full disk, a deadlock) is the database's, not a note's: the write fails whole, to be
# tried again.
_REFUSED_CLASSES = ("22", "23", "54")
# What a note holds that an index row could not: named after the index refusing it.
_TOO_LONG = {
    "entries_vault_path": "its path",
    "entries_tags": "a tag",
    "links_vault_target": "a link's target",
}


def storable(text: str) -> str:
    """`text` with each character Postgres cannot store replaced by U+FFFD."""
    return _REFUSED.sub(REPLACEMENT, text) if _refused_in(text) else text


def _refused_in(text: str) -> bool:
    # Ten times faster than the pattern's search: NUL by a byte scan, a lone surrogate
    # by the encoding that cannot take one (ASCII, a flag of the string, holds none).
    if "\x00" in text:
        return True
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def storable_value(value: Any) -> Any:
    """A frontmatter value with `storable` text at any depth, keys included (bytes,
    from YAML's `!!binary`, become text here: that is how the index stores them)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, bytes):
        return storable(value.decode("utf-8", "replace"))
    if isinstance(value, Mapping):
        return {
            storable(k) if isinstance(k, str) else k: storable_value(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [storable_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(storable_value(v) for v in value)
    if isinstance(value, set | frozenset):
        return {storable_value(v) for v in value}
    return value


def storable_entry(entry: Entry) -> Entry:
    """`entry` with every text the index stores made storable (the path excepted: a
    path is checked where it is read, storage.vault.paths); `entry` itself when
    nothing had to change, which is nearly always."""
    fields = storable_value(entry.fields)
    if fields == entry.fields:
        fields = entry.fields
    changed = {
        name: storable(text)
        for name in ("category", "title", "body", "frontmatter_error", "encoding_error")
        if isinstance(text := getattr(entry, name), str) and _refused_in(text)
    }
    if fields is entry.fields and not changed:
        return entry
    return dataclasses.replace(entry, fields=fields, **changed)


def refusal(exc: BaseException) -> str | None:
    """Why a note could not be stored, when `exc` (raised while writing it) says the
    note was at fault: Postgres refused what it was given, or preparing it failed; None
    when the database was (see _REFUSED_CLASSES)."""
    error = exc.orig if isinstance(exc, StatementError) and exc.orig is not None else exc
    if isinstance(error, psycopg.Error):
        if (error.sqlstate or "")[:2] not in _REFUSED_CLASSES:
            return None
        detail = str(error)
        what = next((what for name, what in _TOO_LONG.items() if f'"{name}"' in detail), None)
        if what is not None:
            detail = f"{what} is too long for the index ({detail.strip().splitlines()[0]})"
    elif isinstance(error, OSError) or not isinstance(error, Exception):
        return None
    elif isinstance(error, RecursionError):
        detail = "it is nested too deep to read (RecursionError)"
    else:
        detail = f"{type(error).__name__}: {error}"
    lines = detail.strip().splitlines()
    return storable(f"could not be indexed: {lines[0] if lines else type(error).__name__}")[:300]
