"""What a change would do, shown before it runs: the diffs an approval card shows, and
the hash that ties the approved change to what was shown (mixed into Vault)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from storage.entry import Preview
from storage.errors import NothingToChange
from storage.vault.atomic import VaultLock
from storage.vault.diffs import bytes_diff
from storage.vault.edits import read_note, updated_note
from storage.vault.gitrepo import GitRepo
from storage.vault.moves import plan_move, plan_rename
from storage.vault.notefile import content_hash
from storage.vault.paths import VaultPaths
from storage.vault.undo import plan_undo


class Previews:
    """The `preview_*` methods of Vault, which sets these attributes."""

    _lock: VaultLock
    _paths: VaultPaths
    _git: GitRepo
    categories: tuple[str, ...]
    max_bytes: int

    def preview_update(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        remove_fields: Sequence[str] = (),
    ) -> Preview:
        """The diff `update` would make now (empty when it would change nothing)."""
        with self._lock.hold():
            rel, full = self._paths.resolve(path)
            old = read_note(rel, full, self.max_bytes, None)
            try:
                new = updated_note(rel, old, fields, body, remove_fields)
            except NothingToChange:
                new = old
        return Preview(bytes_diff(rel, old, rel, new) if new != old else "", content_hash(old))

    def preview_move(self, path: str, category: str) -> Preview:
        """The diff `move` would make now (the note, then each note whose links follow),
        the new path and the notes relinked."""
        with self._lock.hold():
            return plan_move(self._paths, self.categories, path, category, self.max_bytes).preview()

    def preview_rename(self, path: str, title: str, file_name: str | None = None) -> Preview:
        """What `rename` would do now, as `preview_move` tells it."""
        with self._lock.hold():
            return plan_rename(self._paths, path, title, file_name, self.max_bytes).preview()

    def preview_delete(self, path: str) -> Preview:
        """The diff `delete` would make now: every line removed."""
        with self._lock.hold():
            rel, full = self._paths.resolve(path)
            old = read_note(rel, full, self.max_bytes, None)
        return Preview(bytes_diff(rel, old, None, b""), content_hash(old))

    def preview_undo(self, commit: str) -> Preview:
        """The diff `undo` would make now, over every file it touches, and the hash of
        that plan (pass it to `undo` as `expected_hash`)."""
        with self._lock.hold():
            plan = plan_undo(self._git, commit)
        return Preview(plan.diff(), plan.content_hash)
