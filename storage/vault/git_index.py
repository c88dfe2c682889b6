"""The vault's git index (mixed into GitRepo): a cache of `git status` that follows the
paths brainbot commits, written after each commit or, inside `index_later`, when the
writer says (storage.writer writes it while the database indexes the note)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pygit2

log = logging.getLogger(__name__)


class IndexFollowing:
    """The methods of GitRepo for its git index, which sets these attributes."""

    root: Path
    repo: pygit2.Repository
    _index_backlog: set[str]
    _index_later: bool

    def head_commit(self) -> pygit2.Commit | None:
        raise NotImplementedError

    def _index(self) -> pygit2.Index:
        """The git index; a damaged one (a crash, a full disk) is rebuilt from HEAD, as
        `git reset` would: HEAD and the files are the truth, the index only a cache."""
        try:
            index: pygit2.Index = self.repo.index
            index.read(False)
            return index
        except pygit2.GitError as exc:
            log.warning("the vault's git index is damaged (%s); rebuilding it from HEAD", exc)
        (Path(self.repo.path) / "index").unlink(missing_ok=True)
        index = self.repo.index
        index.clear()
        head = self.head_commit()
        if head is not None:
            index.read_tree(head.tree)
        index.write()
        return index

    def follow_paths(self, paths: Iterable[str]) -> bool:
        """Bring the git index's entries for `paths` up to the files on disk (after a
        commit, or a change that landed but was cut short before the index followed).
        False when the index could not be written (it is retried on the next write).
        Inside `index_later` the paths only wait for `follow_index`."""
        self._index_backlog.update(paths)
        if self._index_later:
            return True
        self._refresh_index()
        return not self._index_backlog

    @contextmanager
    def index_later(self) -> Iterator[None]:
        """Commits inside leave the git index to `follow_index`, run next under the write
        lock (storage.writer). A death in between loses nothing: the index is a cache
        that `uncommitted` makes follow files as HEAD has them."""
        self._index_later = True
        try:
            yield
        finally:
            self._index_later = False

    def follow_index(self) -> bool:
        """Write the git index left for later (False: not yet, see `follow_paths`)."""
        return self.follow_paths(())

    def _refresh_index(self) -> None:
        """Bring the git index up to date for the paths we committed. Only those
        entries change (~4 ms for a 10,000-entry index); if a git command run by hand
        holds the index lock, they are kept for the next write."""
        if not self._index_backlog:
            return
        try:
            index = self._index()
            for path in sorted(self._index_backlog):
                if (self.root / path).is_file():
                    index.add(path)
                elif path in index:
                    index.remove(path)
            index.write()
        except (pygit2.GitError, OSError) as exc:
            log.warning("git index not updated yet (%s); will retry on the next write", exc)
            return
        self._index_backlog.clear()
