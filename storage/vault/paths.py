"""Path safety for the vault: the one place that decides whether a path may be used.

Every path that comes from outside (a tool call, a file name from chat, an imported
folder) goes through `VaultPaths.resolve` before anything is read or written.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Collection, Sequence
from pathlib import Path, PurePosixPath

from storage.errors import EntryTooLarge, StorageError, UnsafePath

ATTACHMENTS_DIR = "attachments"
DIGESTS_DIR = "digests"  # the digests brainbot keeps (`digests/2026-11-20.md`)
TEMPLATES_DIR = "templates"
# Folders whose files are no thoughts of the person's: files they shared, digests
# brainbot wrote, templates. Nothing there is related, drawn or brought back.
NOT_THOUGHTS = (ATTACHMENTS_DIR, DIGESTS_DIR, TEMPLATES_DIR)
# Folders of notes put away: not drawn at random or brought back by the digest.
PUT_AWAY = ("archive", "archived", "_archive")
NOTE_SUFFIX = ".md"
# Notes nest at most this many folders deep. Deeper folders are left out of the vault:
# libgit2 refuses to walk a working tree past 100 levels (`directory nesting too
# deep`), and no person files a note 65 folders down.
MAX_FOLDERS = 64
_MAX_NAME_BYTES = 255
TOO_DEEP = f"nested more than {MAX_FOLDERS} folders deep; its notes are left out"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UNDECODED = re.compile("[\ud800-\udfff]")
_UNSAFE_NAME_CHARS = re.compile(r"[^\w.\- ]+")
# Names Windows reserves for devices, whatever the extension: a vault holding one
# cannot be checked out there.
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"{port}{n}" for port in ("com", "lpt") for n in (*"123456789", "¹", "²", "³")]
)


NOT_A_NOTE = "files under attachments/ are attachments, not notes"


def is_note_path(rel: str) -> bool:
    """True for a vault-relative path that names a Markdown note. A `.md` file kept
    under `attachments/` (a document someone sent) is an attachment, as a PDF there
    is: its text reaches search through the note holding it, never as a note of its
    own, whatever it holds."""
    return (
        rel.lower().endswith(NOTE_SUFFIX) and len(rel) > len(NOTE_SUFFIX) and not is_attachment(rel)
    )


def is_attachment(rel: str) -> bool:
    """True for a vault-relative path in the attachments folder (or that folder)."""
    return rel.split("/", 1)[0] == ATTACHMENTS_DIR


def shown_path(path: str) -> str:
    """`path` as text that can be printed and stored: a name's bytes that are not UTF-8
    (lone surrogates, as Python reads them) written as escapes."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def check_relpath(path: str) -> str:
    """Check a vault-relative path lexically and return it in canonical `a/b.md` form.

    Refuses absolute paths, `..` and `.` components, backslashes, control characters
    (NUL, newlines), names that are not UTF-8, empty components, hidden components
    (`.git`, `.obsidian`, temp files) and paths more than MAX_FOLDERS folders deep.
    """
    if not isinstance(path, str) or not path:
        raise UnsafePath(str(path), "empty path")
    if _CONTROL.search(path):
        raise UnsafePath(path, "control characters are not allowed")
    if "\\" in path:
        raise UnsafePath(path, "backslashes are not allowed")
    if _UNDECODED.search(path):
        # A file name whose bytes are not UTF-8 (Python holds them as lone surrogates):
        # no text can hold it (the index, the ledger of skipped files).
        raise UnsafePath(shown_path(path), "its name is not UTF-8; rename the file")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise UnsafePath(path, "absolute paths are not allowed")
    parts = path.split("/")
    if len(parts) > MAX_FOLDERS + 1:
        raise UnsafePath(path[:200] + "...", TOO_DEEP)
    for part in parts:
        if part in ("", "."):
            raise UnsafePath(path, "empty or '.' path components are not allowed")
        if part == "..":
            raise UnsafePath(path, "'..' is not allowed")
        if part.startswith("."):
            raise UnsafePath(path, "hidden files and folders (like .git) are not allowed")
        if len(part.encode("utf-8")) > _MAX_NAME_BYTES:
            raise UnsafePath(path, "a path component is longer than 255 bytes")
    return "/".join(parts)


class VaultPaths:
    """Maps vault-relative paths to files under one root, refusing anything unsafe."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, path: str, *, note: bool = True, for_write: bool = False) -> tuple[str, Path]:
        """Return `(canonical relative path, absolute path)` for `path`.

        `note` requires a `.md` target. A path whose real location (after following
        symlinks) is outside the vault, or inside `.git`, is refused; a write also
        refuses any symlink on the way, so what git records is what is written.
        """
        rel = check_relpath(path)
        if note and not is_note_path(rel):
            why = NOT_A_NOTE if is_attachment(rel) else "only .md notes can be written or read here"
            raise UnsafePath(path, why)
        full = self.root.joinpath(*rel.split("/"))
        real = Path(os.path.realpath(full))
        try:
            real_rel = real.relative_to(self.root)
        except ValueError:
            raise UnsafePath(path, "it leads outside the vault") from None
        if any(part.startswith(".") for part in real_rel.parts):
            raise UnsafePath(path, "it leads into a hidden folder such as .git")
        if for_write and PurePosixPath(*real_rel.parts) != PurePosixPath(rel):
            raise UnsafePath(path, "it goes through a symlink")
        return rel, full

    def free(self, rel: str, *, note: bool = True, taken: Collection[str] = ()) -> str:
        """`rel`, or the first of `-2`, `-3`... not taken (on disk, or in `taken`: the
        paths a change being prepared chose already). All are in one checked folder."""
        _, full = self.resolve(rel, note=note, for_write=True)
        for number in range(1, 100_000):
            candidate = rel if number == 1 else with_suffix_number(rel, number)
            if candidate in taken:
                continue
            if not os.path.lexists(full.with_name(candidate.rsplit("/", 1)[-1])):
                return candidate
        raise StorageError(f"no free file name for {rel!r}")

    def attachments(self, files: Sequence[tuple[str, bytes]], max_bytes: int) -> dict[str, bytes]:
        """Where each file from chat (name, bytes) goes: `attachment_path`, numbered when
        taken on disk or by an earlier one of `files`; EntryTooLarge past `max_bytes`."""
        kept: dict[str, bytes] = {}
        for name, data in files:
            rel = self.free(attachment_path(name), note=False, taken=kept)
            if len(data) > max_bytes:
                raise EntryTooLarge(rel, len(data), max_bytes)
            kept[rel] = data
        return kept

    def relative(self, full: Path) -> str:
        """The vault-relative `/` form of an absolute path under the root."""
        return full.relative_to(self.root).as_posix()


def safe_file_name(name: str, *, fallback: str = "attachment") -> str:
    """A harmless single file name from one given by a user or platform.

    Keeps letters (any script), digits, `.`, `-`, `_` and spaces; drops folders,
    leading dots and control characters; bounds the length and keeps the extension.
    """
    base = unicodedata.normalize("NFC", name).replace("\\", "/").split("/")[-1]
    base = _CONTROL.sub("", base)
    base = _UNSAFE_NAME_CHARS.sub("-", base).strip(" .-")
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    ext = ext[:16]
    stem = windows_safe(stem.strip(" .-") or fallback)
    budget = _MAX_NAME_BYTES - 24 - len(ext.encode("utf-8"))
    while len(stem.encode("utf-8")) > budget:
        stem = stem[:-1]
    return f"{stem}.{ext}" if ext else stem


def attachment_path(name: str) -> str:
    """The vault path of a file from chat called `name`, before numbering."""
    return f"{ATTACHMENTS_DIR}/{safe_file_name(name)}"


def windows_safe(stem: str) -> str:
    """`stem`, or `stem-note` when Windows reserves it as a device name (`con`, `nul`...)."""
    base = stem.split(".", 1)[0].rstrip(" ").lower()
    return f"{stem}-note" if base in _WINDOWS_RESERVED else stem


def with_suffix_number(rel: str, number: int) -> str:
    """`ideas/tea.md`, 2 -> `ideas/tea-2.md` (the suffix goes before the extension)."""
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    numbered = f"{stem}-{number}" + (f".{ext}" if dot else "")
    return f"{folder}/{numbered}" if folder else numbered
