"""Merging two versions of one note that git's line merge could not: frontmatter field
by field, the body line by line.

git merges a note's lines; two fields changed on neighbouring lines of the
frontmatter (a tag added on a laptop, `status` set by the bot) are a conflict to it.
Here the frontmatter is merged as fields: each field takes the side that changed it;
both sides setting one field to different values is a conflict, except `updated`,
which takes the later time. The body then goes through git's own three-way file
merge. The result is None when the same lines or the same field changed on both
sides differently: the caller keeps both versions then.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

from storage.vault.notefile import ParsedNote, parse_note, render_note

_LATEST_WINS = frozenset({"updated"})
_MISSING = object()


def merge_note(base: bytes | None, ours: bytes, theirs: bytes) -> bytes | None:
    """The note with both sides' changes, or None when they touch the same lines or
    the same field differently (see the module doc)."""
    texts = [_text(data) for data in (base or b"", ours, theirs)]
    if any(text is None for text in texts):
        return None  # not UTF-8: no field to merge, and no lines worth guessing at
    base_text, ours_text, theirs_text = (text or "" for text in texts)
    notes = [parse_note(text) for text in (base_text, ours_text, theirs_text)]
    if any(note.error for note in notes) or not (notes[1].fields or notes[2].fields):
        merged = merge_lines(base_text, ours_text, theirs_text)
        return None if merged is None else merged.encode("utf-8")
    fields = merge_fields(notes[0], notes[1], notes[2])
    body = merge_lines(*(_with_newline(note.body) for note in notes))
    if fields is None or body is None:
        return None
    return render_note(fields, body.removesuffix("\n")).encode("utf-8")


def merge_fields(base: ParsedNote, ours: ParsedNote, theirs: ParsedNote) -> dict[str, Any] | None:
    """Each field from the side that changed it; None when both changed one field to
    different values (`updated` excepted: the later wins). Our order of keys, then
    theirs' new ones."""
    merged: dict[str, Any] = {}
    for key in [*ours.fields, *(k for k in theirs.fields if k not in ours.fields)]:
        was = base.fields.get(key, _MISSING)
        mine = ours.fields.get(key, _MISSING)
        other = theirs.fields.get(key, _MISSING)
        if mine == other or other == was:
            value = mine
        elif mine == was:
            value = other
        elif key in _LATEST_WINS and mine is not _MISSING and other is not _MISSING:
            value = max(mine, other, key=str)
        else:
            return None
        if value is not _MISSING:
            merged[key] = value
    return merged


def merge_lines(base: str, ours: str, theirs: str) -> str | None:
    """git's three-way merge of three texts (`git merge-file`); None on a conflict."""
    with tempfile.TemporaryDirectory(prefix="brainbot-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        done = subprocess.run(
            ["git", "merge-file", "-p", "--quiet", *paths],
            capture_output=True,
            check=False,
        )
    # The exit code counts the conflicts; negative (or > 127) is an error.
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _with_newline(body: str) -> str:
    return f"{body}\n" if body else ""
