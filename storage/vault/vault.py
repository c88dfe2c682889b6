"""The vault: Markdown notes in a git repository, the source of truth of brainbot.

Every change is written atomically and recorded as one git commit whose message names
the operation, the path(s) and the source, with the chat user as author. Writes are
serialised per vault (a thread lock and a file lock inside `.git` for other processes).
Methods are synchronous; async callers run them in a thread.

Choices worth knowing:
- A write that would change nothing raises NothingToChange and makes no commit.
- If a note was edited by hand and not committed, an update, move or delete first
  records that edit as its own commit (operation `edit`), so undoing the bot's change
  never throws the hand edit away.
- A note whose frontmatter does not parse can be read, moved, deleted and have its body
  replaced (the broken block is kept verbatim); setting fields raises BrokenFrontmatter.
"""

from __future__ import annotations

import builtins
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from storage.entry import (
    BOT_AUTHOR,
    Author,
    Change,
    Entry,
    Written,
)
from storage.errors import (
    EntryNotFound,
    EntryTooLarge,
    NothingToChange,
    StaleEdit,
    StorageError,
    UnknownCategory,
    UnsafePath,
)
from storage.text import wikilinks
from storage.vault import schema
from storage.vault.atomic import VaultLock
from storage.vault.commits import Committer, Source
from storage.vault.edits import read_note, updated_note
from storage.vault.files import read_regular
from storage.vault.gitrepo import GitRepo
from storage.vault.history import change_from_commit, commits_since_mention, history
from storage.vault.merging import RemoteMerges
from storage.vault.moves import commit_plan, plan_move, plan_rename
from storage.vault.notefile import entry_from_bytes, entry_or_none, render_note
from storage.vault.outside import OutsideChanges
from storage.vault.paths import (
    ATTACHMENTS_DIR,
    VaultPaths,
    check_relpath,
    is_note_path,
)
from storage.vault.previews import Previews
from storage.vault.scan import walk_notes
from storage.vault.undo import plan_undo

log = logging.getLogger(__name__)
# Another note changed with a new one: its path, and its new text from the old (None when
# it is not there yet) and the new note's path.
Then = tuple[str, Callable[[str | None, str], str]]
BodyEdit = Callable[[Entry], str | None]  # a note as it is now -> its new body (None: as is)

_OPERATION_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class Vault(Previews, OutsideChanges, RemoteMerges):
    """Markdown notes with YAML frontmatter in a git repository (see the module doc)."""

    def __init__(
        self,
        root: Path,
        categories: Sequence[str],
        *,
        max_bytes: int,
        max_attachment_bytes: int,
    ) -> None:
        for category in categories:
            if "/" in category or check_relpath(category) == ATTACHMENTS_DIR:
                raise UnsafePath(category, "a category must be one plain folder name")
        root.mkdir(parents=True, exist_ok=True)
        self._paths = VaultPaths(root)
        self.root = self._paths.root
        self.categories = tuple(dict.fromkeys(categories))
        self.max_bytes = max_bytes
        self.max_attachment_bytes = max_attachment_bytes
        self._git = GitRepo(self.root)
        self._commits = Committer(self.root, self._git)
        # Whoever takes the lock finds a change that a kill cut short put right first.
        self._lock = VaultLock(Path(self._git.repo.path) / "brainbot.lock", self._commits.settle)
        with self._lock.hold():
            self._commits.recover()
            self._commits.ensure_layout(self.categories)

    def index_later(self) -> AbstractContextManager[None]:
        """Writes inside leave the git index to `follow_index` (GitRepo.index_later)."""
        return self._git.index_later()

    def follow_index(self) -> bool:
        """Write the git index for what writes inside `index_later` committed."""
        with self._lock.hold():
            return self._git.follow_index()

    # -- reading -------------------------------------------------------------------------

    def head(self) -> str | None:
        """The sha of the vault's latest commit (None before the first)."""
        with self._lock.hold():
            commit = self._git.head_commit()
        return None if commit is None else str(commit.id)

    def read(self, path: str) -> Entry:
        """The note at `path` (EntryNotFound, UnsafePath, EntryTooLarge, NotAFile). Broken
        frontmatter is reported in `frontmatter_error`, bytes not UTF-8 in `encoding_error`."""
        rel, full = self._paths.resolve(path)
        return entry_from_bytes(rel, self._read_bytes(rel, full))

    def read_file(self, path: str, max_bytes: int, *, note: bool = False) -> bytes:
        """The bytes of any file at `path` (an attachment, a template; `note`: only a
        `.md` note), its path checked as a note's is, never more than `max_bytes`
        read (EntryNotFound, UnsafePath, NotAFile, EntryTooLarge)."""
        rel, full = self._paths.resolve(path, note=note)
        return read_regular(full, rel, max_bytes, self.root)

    def exists(self, path: str) -> bool:
        """Whether a note exists at `path` (UnsafePath for a path that may not be used)."""
        return self._paths.resolve(path)[1].is_file()

    def note_paths(self, category: str | None = None) -> builtins.list[str]:
        """Every note's path (in one category, or the whole vault), sorted; hidden
        folders and symlinks leading out of the vault are left out."""
        if category is not None:
            self._check_category(category)
        return walk_notes(self._paths, self.root / category if category else self.root)

    def list(self, category: str | None = None) -> list[Entry]:
        """Every readable note (of a category), by path; unreadable files are logged
        and left out. The index offers fast, filtered listing."""
        entries: list[Entry] = []
        for rel in self.note_paths(category):
            try:
                entries.append(self.read(rel))
            except StorageError as exc:
                log.warning("left out of the list: %s", exc)
        return entries

    def history(self, path: str | None = None, limit: int = 20) -> builtins.list[Change]:
        """Changes newest first; with a path, those that touched that note (through moves)."""
        rel = self._paths.resolve(path, note=False)[0] if path is not None else None
        with self._lock.hold():
            return history(self._git, rel, limit)

    def has_event_commit(self, event_key: str, since: datetime) -> bool:
        """Whether a commit since `since` names `event=<event_key>` in its source line."""
        marker = f" event={event_key}"
        with self._lock.hold():
            return commits_since_mention(self._git, marker, since)

    def change(self, commit: str) -> Change:
        """One change by its commit id, however old (ChangeNotFound when there is none)."""
        with self._lock.hold():
            return change_from_commit(self._git, self._git.find_commit(commit))

    # -- writing notes -------------------------------------------------------------------

    def create(
        self,
        category: str,
        title: str,
        body: str = "",
        fields: Mapping[str, Any] | None = None,
        *,
        author: Author = BOT_AUTHOR,
        source: Source = None,
        zone: tzinfo | None = None,
        then: Then | None = None,
        attachments: Sequence[tuple[str, bytes]] = (),
    ) -> Written:
        """File a new note under `category/<slug>.md`, a person's under their name
        ("Sarah Kim.md"), `-2`... when taken; times in `zone` (schema.new_note).
        `then`: another note's path and how it changes (its text, None when missing, and
        the new note's path give its new text), in the same commit (a daily note's line),
        as are `attachments` (`write_attachments`'), each embedded at the body's end."""
        self._check_category(category)
        note = schema.new_note(category, title, body, fields, source, zone)
        with self._lock.hold():
            kept = self._paths.attachments(attachments, self.max_attachment_bytes)
            body += "".join(f"\n\n{wikilinks.wikilink(path, embed=True)}" for path in kept)
            rel = self._paths.free(f"{category}/{note.stem}.md")
            new_fields = schema.with_aliases(note.fields, rel.rsplit("/", 1)[-1][:-3])
            data = render_note(new_fields, body).encode("utf-8")
            self._check_size(rel, data, self.max_bytes)
            files = {rel: data, **kept}
            if then is not None:
                other, full = self._paths.resolve(then[0], for_write=True)
                old = self._read_bytes(other, full) if full.exists() else None
                files[other] = then[1](None if old is None else old.decode(), rel).encode()
            change = self._commits.write(files, f"create {rel}", author, source)
        return Written(entry_from_bytes(rel, data), change, tuple(kept))

    def update(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        remove_fields: Sequence[str] = (),
        expected_hash: str | None = None,
        author: Author,
        source: Source = None,
        operation: str = "update",
    ) -> Written:
        """Set and remove fields (never `id`, `created`) and/or replace the body; `updated`
        is bumped. `operation` (append, tag, tick...) begins the commit's subject."""
        with self._lock.hold():
            rel, full = self._paths.resolve(path, for_write=True)
            old = self._read_bytes(rel, full, expected_hash)
            new = updated_note(rel, old, fields, body, remove_fields)
            self._check_size(rel, new, self.max_bytes)
            self._commits.record_outside_edit(rel, old)
            change = self._commits.write({rel: new}, f"{operation} {rel}", author, source)
        return Written(entry_from_bytes(rel, new), change)

    def update_bodies(
        self,
        edits: Mapping[str, BodyEdit],
        *,
        operation: str,
        author: Author,
        source: Source = None,
    ) -> Written:
        """Several notes' bodies changed in ONE commit `<operation> <paths>` (a capture's
        timeline lines on everyone it names); NothingToChange when none changes."""
        with self._lock.hold():
            files: dict[str, bytes | None] = {}
            for path, edit in edits.items():
                rel, full = self._paths.resolve(path, for_write=True)
                old = self._read_bytes(rel, full)
                entry = entry_from_bytes(rel, old)
                body = edit(entry)
                if body is None or body == entry.body:
                    continue
                new = updated_note(rel, old, None, body, ())
                self._check_size(rel, new, self.max_bytes)
                self._commits.record_outside_edit(rel, old)
                files[rel] = new
            if not files:
                raise NothingToChange(", ".join(edits))
            change = self._commits.write(files, f"{operation} {', '.join(files)}", author, source)
        return Written(None, change)

    def move(
        self,
        path: str,
        category: str,
        *,
        expected_hash: str | None = None,
        author: Author,
        source: Source = None,
    ) -> Written:
        """Move a note to another category; its frontmatter gains the new category's
        fields and keeps every value it had. Links to it (and its own relative links)
        are rewritten in the same commit (storage.vault.relink)."""
        with self._lock.hold():
            plan = plan_move(self._paths, self.categories, path, category, self.max_bytes)
            return commit_plan(self._commits, plan, "move", expected_hash, author, source)

    def rename(
        self,
        path: str,
        title: str,
        file_name: str | None = None,
        *,
        expected_hash: str | None = None,
        author: Author,
        source: Source = None,
    ) -> Written:
        """Give a note a new title and file name (from the title when None) in its
        folder; links to it follow in the same commit, as for `move`."""
        with self._lock.hold():
            plan = plan_rename(self._paths, path, title, file_name, self.max_bytes)
            return commit_plan(self._commits, plan, "rename", expected_hash, author, source)

    def delete(
        self, path: str, *, expected_hash: str | None = None, author: Author, source: Source = None
    ) -> Written:
        """Remove a note; git keeps it, so the change can be undone (its bytes are read for
        that: a note over the size cap is refused with EntryTooLarge, nothing changed)."""
        with self._lock.hold():
            rel, full = self._paths.resolve(path, for_write=True)
            old = self._read_bytes(rel, full, expected_hash)
            self._commits.record_outside_edit(rel, old)
            change = self._commits.write({rel: None}, f"delete {rel}", author, source)
        return Written(None, change)

    def undo(
        self,
        commit: str,
        *,
        author: Author,
        source: Source = None,
        expected_hash: str | None = None,
    ) -> Written:
        """Revert one earlier change as a new commit `undo <sha> (<its subject>)`.
        UndoConflict when later changes overlap it; StaleEdit when `expected_hash` (from
        `preview_undo`) no longer matches what the undo would do; nothing is written then.
        `entry` is the restored note when the undo leaves exactly one in place."""
        with self._lock.hold():
            plan = plan_undo(self._git, commit)
            if expected_hash is not None and plan.content_hash != expected_hash:
                raise StaleEdit(", ".join(sorted(plan.files)), expected_hash, plan.content_hash)
            for rel in plan.files:
                self._paths.resolve(rel, note=False, for_write=True)
            subject = f"undo {str(plan.commit.id)[:10]} ({plan.subject})"
            change = self._commits.write(plan.files, subject, author, source)
        kept = [(rel, data) for rel, data in plan.files.items() if data is not None]
        entry = None
        if len(kept) == 1 and is_note_path(kept[0][0]):
            entry = entry_or_none(*kept[0])
        return Written(entry, change)

    def write_note(
        self,
        path: str,
        text: str | Callable[[str | None], str],
        *,
        operation: str,
        author: Author,
        message: str = "",
        source: Source = None,
    ) -> Written:
        """Write a whole `.md` file (e.g. `digests/2026-11-20.md`), replacing any previous
        one (read up to the size cap), as a commit `<operation> <path>` with `message`
        below it; `text` may be made, under the write lock, from the file's text (or None)."""
        if not _OPERATION_NAME.match(operation):
            raise StorageError(f"operation {operation!r} must be one lowercase word")
        with self._lock.hold():
            rel, full = self._paths.resolve(path, for_write=True)
            try:
                old: bytes | None = self._read_bytes(rel, full)
            except EntryNotFound:
                old = None
            if callable(text):
                text = text(None if old is None else old.decode("utf-8", "replace"))
            data = text.encode("utf-8")
            self._check_size(rel, data, self.max_bytes)
            if old == data:
                raise NothingToChange(rel)
            if old is not None:
                self._commits.record_outside_edit(rel, old)
            change = self._commits.write({rel: data}, f"{operation} {rel}", author, source, message)
        return Written(entry_or_none(rel, data), change)

    def write_attachments(
        self, files: Sequence[tuple[str, bytes]], *, author: Author, source: Source = None
    ) -> Written:
        """Keep files from chat (name, bytes) under `attachments/` with safe names, numbered
        when taken, in one commit (`Written.attachments`: their paths in order)."""
        with self._lock.hold():
            kept = self._paths.attachments(files, self.max_attachment_bytes)
            one = next(iter(kept)) if len(kept) == 1 else f"{len(kept)} files"
            change = self._commits.write(kept, f"attach {one}", author, source)
        return Written(None, change, tuple(kept))

    def _check_category(self, category: str) -> None:
        if category not in self.categories:
            raise UnknownCategory(category, self.categories)

    @staticmethod
    def _check_size(rel: str, data: bytes, limit: int) -> None:
        if len(data) > limit:
            raise EntryTooLarge(rel, len(data), limit)

    def _read_bytes(self, rel: str, full: Path, expected_hash: str | None = None) -> bytes:
        return read_note(rel, full, self.max_bytes, expected_hash)
