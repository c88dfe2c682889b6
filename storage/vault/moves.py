"""Planning a move or a rename: the note's new path and bytes, and every other note
whose links must follow it (storage.vault.relink), as one set of files for one commit.

A plan is computed afresh for the preview and again for the write; its hash covers
everything it read (the note, the linking notes, the new path), so an approval
given on a preview fails cleanly (StaleEdit) when any of that changed since.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from storage.entry import Author, Preview, Written
from storage.errors import NothingToChange, StaleEdit, StorageError, UnknownCategory, UnsafePath
from storage.vault import schema
from storage.vault.commits import Committer, Source
from storage.vault.diffs import bytes_diff
from storage.vault.edits import moved_note, read_note, updated_note
from storage.vault.notefile import content_hash, entry_or_none
from storage.vault.paths import NOTE_SUFFIX, VaultPaths, check_relpath, windows_safe
from storage.vault.relink import Notes, Relocation, relinked
from storage.vault.scan import walk_notes

# A file name ending like `.txt` or `.pdf`: not a note, and not turned into one.
_OTHER_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


@dataclass(frozen=True, slots=True)
class MovePlan:
    """What moving the note at `source` to `target` writes: `files` for the commit
    (None removes), the bytes it read (`before`) and the other notes it relinks."""

    source: str
    target: str
    files: dict[str, bytes | None]
    before: dict[str, bytes]
    relinked: tuple[str, ...]

    @property
    def content_hash(self) -> str:
        """The note's own content hash when no other note changes (as for an update),
        else one hash over the new path and every file read."""
        if not self.relinked:
            return content_hash(self.before[self.source])
        digest = hashlib.sha256(self.target.encode("utf-8") + b"\0")
        for path in sorted(self.before):
            digest.update(path.encode("utf-8") + b"\0" + self.before[path] + b"\0")
        return digest.hexdigest()

    def preview(self) -> Preview:
        """The diff of the note's move, then of each relinked note's links."""
        diffs = [bytes_diff(self.source, self.before[self.source], self.target, self._new())]
        for path in self.relinked:
            diffs.append(bytes_diff(path, self.before[path], path, self.files[path] or b""))
        return Preview("".join(diffs), self.content_hash, self.target, self.relinked)

    def _new(self) -> bytes:
        return self.files[self.target] or b""


def plan_move(
    paths: VaultPaths, categories: Sequence[str], path: str, category: str, max_bytes: int
) -> MovePlan:
    """Move the note at `path` into `category` (fields follow the new category)."""
    if category not in categories:
        raise UnknownCategory(category, tuple(categories))
    rel, full = paths.resolve(path, for_write=True)
    old = read_note(rel, full, None)
    folder, slash, name = rel.rpartition("/")
    if folder == category:
        raise NothingToChange(rel)
    target = paths.free(f"{category}/{name}")
    new = moved_note(rel, old, rel.split("/", 1)[0] if slash else "", category)
    return _with_links(paths, rel, old, target, new, max_bytes)


def plan_rename(
    paths: VaultPaths, path: str, title: str, file_name: str | None, max_bytes: int
) -> MovePlan:
    """Give the note at `path` a new title and file name in the same folder (the
    name from the title when `file_name` is None; the title joins `aliases` when
    the two differ, and so does the old title, so links by the old name still
    resolve). UnsafePath for a name that is a path, not `.md`, or taken by another note."""
    title = " ".join(title.split())
    if not title:
        raise StorageError("a rename needs a title")
    rel, full = paths.resolve(path, for_write=True)
    old = read_note(rel, full, None)
    folder = posixpath.dirname(rel)
    stem = _stem_for(file_name, folder.split("/", 1)[0], title)
    target = check_relpath(f"{folder}/{stem}{NOTE_SUFFIX}" if folder else f"{stem}{NOTE_SUFFIX}")
    paths.resolve(target, for_write=True)
    taken = {p.lower(): p for p in walk_notes(paths, full.parent) if p != rel}
    if target.lower() in taken:
        raise UnsafePath(target, f"{taken[target.lower()]} already exists")
    changes: dict[str, object] = {"title": title}
    entry = entry_or_none(rel, old)
    if entry is not None:
        kept = schema.with_alias(entry.fields, entry.title, unless=title)
        named = schema.with_aliases({**kept, "title": title}, stem)
        if named.get("aliases") != entry.fields.get("aliases"):
            changes["aliases"] = named["aliases"]
    try:
        new = updated_note(rel, old, changes, None, ())
    except NothingToChange:
        if target == rel:
            raise
        new = old
    return _with_links(paths, rel, old, target, new, max_bytes)


def commit_plan(
    commits: Committer,
    plan: MovePlan,
    operation: str,
    expected_hash: str | None,
    author: Author,
    source: Source,
) -> Written:
    """Carry out `plan` as one commit `<operation> <old> -> <new>`, if it is still what
    the caller previewed (StaleEdit otherwise). Hand edits are recorded first."""
    if expected_hash is not None and plan.content_hash != expected_hash:
        raise StaleEdit(plan.source, expected_hash, plan.content_hash)
    commits.record_outside_edits(plan.before)
    subject = f"{operation} {plan.source} -> {plan.target}"
    if plan.relinked:
        noun = "note" if len(plan.relinked) == 1 else "notes"
        subject += f" (links in {len(plan.relinked)} {noun})"
    change = commits.write(plan.files, subject, author, source)
    new = plan.files[plan.target]
    return Written(None if new is None else entry_or_none(plan.target, new), change)


def _stem_for(file_name: str | None, category: str, title: str) -> str:
    if file_name is None or not file_name.strip():
        return schema.entry_stem(category, title)
    name = file_name.strip()
    if "/" in name or "\\" in name:
        raise UnsafePath(name, "a file name, not a path: the note stays in its folder")
    if name.lower().endswith(NOTE_SUFFIX):
        name = name[: -len(NOTE_SUFFIX)]
    elif _OTHER_EXTENSION.search(name):
        raise UnsafePath(name, "a note's file name ends in .md")
    if not name.strip(" ."):
        raise UnsafePath(file_name, "an empty file name")
    check_relpath(name + NOTE_SUFFIX)
    return windows_safe(name)


def _with_links(
    paths: VaultPaths, rel: str, old: bytes, target: str, new: bytes, max_bytes: int
) -> MovePlan:
    """The plan for `rel` → `target`, with every note whose links must follow."""
    notes = walk_notes(paths, paths.root)
    move = Relocation(rel, target, Notes(notes))
    after = move.after
    stems = (posixpath.basename(rel)[:-3], posixpath.basename(target)[:-3])
    needles = {form.lower() for stem in stems for form in (stem, quote(stem))}
    files: dict[str, bytes | None] = {} if target == rel else {rel: None}
    before = {rel: old}
    changed = []
    for note in notes:
        if note == rel:
            continue
        text, data = _text_of(paths, note, max_bytes, needles)
        if text is None:
            continue
        new_text = relinked(text, note, move, after)
        if new_text != text:
            files[note] = new_text.encode("utf-8")
            before[note] = data
            changed.append(note)
    try:
        files[target] = relinked(new.decode("utf-8"), rel, move, after).encode("utf-8")
    except UnicodeDecodeError:
        files[target] = new  # a note that is not UTF-8 moves byte for byte
    return MovePlan(rel, target, files, before, tuple(changed))


def _text_of(
    paths: VaultPaths, note: str, max_bytes: int, needles: set[str]
) -> tuple[str | None, bytes]:
    """A note's text when it may link to the moved note (it names it somewhere), or
    None: no mention, or a note that cannot be rewritten here (too large, not UTF-8,
    reached through a symlink)."""
    # Every note is read: the price of truth. Only those that mention a name are parsed.
    try:
        data = read_note(note, paths.root / note, max_bytes)
        text = data.decode("utf-8")
        if not any(needle in text.lower() for needle in needles):
            return None, b""
        paths.resolve(note, for_write=True)
    except (StorageError, UnicodeDecodeError, OSError):
        return None, b""
    return text, data
