"""The vault's git repository, through pygit2.

A commit is built by rewriting only the trees on the paths that changed (a few
milliseconds on a 10,000-note vault, where the git CLI takes ~45 ms), and the git
index is then updated for just those paths, so `git status` in the vault stays clean.
Callers hold the vault lock around every method here.
"""

from __future__ import annotations

import dataclasses
import logging
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileMode, FileStatus, ObjectType

from storage.entry import BOT_AUTHOR, Author
from storage.errors import ChangeNotFound, StorageError
from storage.vault.atomic import atomic_write
from storage.vault.git_index import IndexFollowing
from storage.vault.paths import MAX_FOLDERS

log = logging.getLogger(__name__)

_TreeChanges = dict[str, "pygit2.Oid | _TreeChanges | None"]
_GONE = FileStatus.WT_DELETED | FileStatus.INDEX_DELETED
_STAGED = FileStatus.INDEX_MODIFIED | FileStatus.INDEX_NEW | FileStatus.INDEX_DELETED
_LARGE_TREE = 256
_HASHED_AT_MOST = 64 * 1024 * 1024  # a staged file bigger than this is never a note
DEEP_FOLDERS_RULE = "/" + "*/" * (MAX_FOLDERS + 1)
_DEEP_FOLDERS_NOTE = (
    f"# brainbot: folders more than {MAX_FOLDERS} levels deep are not part of the vault"
)


@dataclass(slots=True)
class WorkingTree:
    """What `git status` found: paths changed and present, paths gone, folders left
    out for being too deep, and why nothing could be found (`problem`)."""

    present: set[str]
    gone: set[str]
    too_deep: set[str]
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class PreparedCommit:
    """A commit written to the object store, not yet on HEAD (`GitRepo.land`)."""

    id: pygit2.Oid
    paths: tuple[str, ...]
    tree: pygit2.Oid
    message: str
    author: pygit2.Signature
    committer: pygit2.Signature
    parent: pygit2.Oid | None  # None: the first commit


@dataclass(frozen=True, slots=True)
class PathChange:
    """One path that differs between two trees (renames are a delete plus an add)."""

    path: str
    old: pygit2.Oid | None  # None: added
    new: pygit2.Oid | None  # None: deleted


def signature(author: Author, when: datetime | None = None) -> pygit2.Signature:
    """A git signature that libgit2 accepts whatever a chat user's name looks like."""
    name = " ".join(author.name.replace("<", "").replace(">", "").split()) or "unknown"
    email = "".join(author.email.replace("<", "").replace(">", "").split()) or "unknown@localhost"
    stamp = int((when or datetime.now(UTC)).timestamp())
    return pygit2.Signature(name, email, stamp, 0)


class GitRepo(IndexFollowing):
    """Commits, diffs and status for one vault folder (its git index: IndexFollowing)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            self.repo = pygit2.Repository(str(root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        except pygit2.GitError:
            self.repo = pygit2.init_repository(str(root), initial_head="main")
        if self.repo.is_bare:
            raise StorageError(f"the vault folder {root.name!r} is a bare git repository")
        self._index_backlog: set[str] = set()
        self._index_later = False  # see `index_later`
        # The tree builders of the last commit prepared, by the tree each wrote: the next
        # commit starts from them instead of reading its folders' trees again (a 3,000-note
        # folder's tree is ~120 KB to inflate and parse). A tree's id is its content, so a
        # builder kept under it holds exactly that tree.
        self._builders: dict[pygit2.Oid, pygit2.TreeBuilder] = {}
        self._leave_out_deep_folders()

    # -- reading -------------------------------------------------------------------------

    def head_commit(self) -> pygit2.Commit | None:
        if self.repo.head_is_unborn:
            return None
        return self.repo.head.peel(pygit2.Commit)

    def find_commit(self, ref: str) -> pygit2.Commit:
        """The commit a full or abbreviated sha names; ChangeNotFound otherwise."""
        text = ref.strip()
        if not text or len(text) > 40 or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise ChangeNotFound(ref)
        try:
            found = self.repo.revparse_single(text)
        except (KeyError, ValueError, pygit2.GitError):
            raise ChangeNotFound(ref) from None
        if not isinstance(found, pygit2.Commit):
            raise ChangeNotFound(ref)
        return found

    def blob_id(self, tree: pygit2.Tree | None, path: str) -> pygit2.Oid | None:
        """The blob at `path` in `tree`, or None if there is none."""
        if tree is None:
            return None
        try:
            entry = tree[path]
        except KeyError:
            return None
        return entry.id if entry.type == ObjectType.BLOB else None

    def blob_data(self, oid: pygit2.Oid) -> bytes:
        blob = self.repo[oid]
        assert isinstance(blob, pygit2.Blob)
        return blob.data

    def diff(self, old: pygit2.Tree | None, new: pygit2.Tree | None) -> list[PathChange]:
        """Paths whose blobs differ between two trees. Identical subtrees are skipped by
        their ids, so the cost grows with the difference, not with the vault (libgit2's
        own tree diff walks every subtree of the root). Iterative: a history may hold a
        folder nested deeper than Python's stack."""
        out: list[PathChange] = []
        pending: list[tuple[pygit2.Tree | None, pygit2.Tree | None, str]] = [(old, new, "")]
        while pending:
            self._diff_step(*pending.pop(), out, pending)
        out.sort(key=lambda change: change.path)
        return out

    def _diff_step(
        self,
        old: pygit2.Tree | None,
        new: pygit2.Tree | None,
        prefix: str,
        out: list[PathChange],
        pending: list[tuple[pygit2.Tree | None, pygit2.Tree | None, str]],
    ) -> None:
        if old is not None and new is not None and old.id == new.id:
            return
        if old is None:
            if new is not None:
                out.extend(
                    PathChange(path, None, oid) for path, oid in self.walk_blobs(new, prefix)
                )
            return
        if new is None:
            out.extend(PathChange(path, oid, None) for path, oid in self.walk_blobs(old, prefix))
            return
        if len(old) + len(new) > _LARGE_TREE:
            # A big flat folder: libgit2 compares its entries faster than Python does.
            for delta in old.diff_to_tree(new).deltas:
                before = None if delta.status == DeltaStatus.ADDED else delta.old_file.id
                after = None if delta.status == DeltaStatus.DELETED else delta.new_file.id
                path = delta.new_file.path if after is not None else delta.old_file.path
                out.append(PathChange(f"{prefix}{path}", before, after))
            return
        olds = {str(item.name): item for item in old}
        news = {str(item.name): item for item in new}
        for name in sorted(olds.keys() | news.keys()):
            a, b = olds.get(name), news.get(name)
            if a is not None and b is not None and a.id == b.id:
                continue
            a_tree = a if isinstance(a, pygit2.Tree) else None
            b_tree = b if isinstance(b, pygit2.Tree) else None
            if a_tree is not None or b_tree is not None:
                pending.append((a_tree, b_tree, f"{prefix}{name}/"))
            a_blob = a.id if a is not None and a.type == ObjectType.BLOB else None
            b_blob = b.id if b is not None and b.type == ObjectType.BLOB else None
            if a_blob is not None or b_blob is not None:
                out.append(PathChange(f"{prefix}{name}", a_blob, b_blob))

    def walk_blobs(self, tree: pygit2.Tree, prefix: str = "") -> Iterable[tuple[str, pygit2.Oid]]:
        """Every blob under `tree` with its path (iteratively, however deep)."""
        pending = [(tree, prefix)]
        while pending:
            here, at = pending.pop()
            for item in here:
                path = f"{at}{item.name}"
                if isinstance(item, pygit2.Tree):
                    pending.append((item, f"{path}/"))
                elif item.type == ObjectType.BLOB:
                    yield path, item.id

    def renamed_from(self, commit: pygit2.Commit, path: str) -> str | None:
        """The path that `commit` renamed to `path`, found by git's rename detection."""
        if not commit.parents:
            return None
        diff = commit.parents[0].tree.diff_to_tree(commit.tree)
        diff.find_similar()
        for delta in diff.deltas:
            if delta.status == DeltaStatus.RENAMED and delta.new_file.path == path:
                return str(delta.old_file.path)
        return None

    def uncommitted(self) -> WorkingTree:
        """Paths whose working-tree state differs from HEAD (hand edits, new files),
        split into present on disk and gone from disk, and the folders left out for
        being too deep. When git cannot walk the tree at all (a committed folder
        nested past libgit2's limit), nothing is found and `problem` says why."""
        tree = WorkingTree(set(), set(), set())
        behind: set[str] = set()
        self._refresh_index()
        self._index()  # a damaged index is rebuilt first, or status fails
        try:
            status = self.repo.status(untracked_files="all", ignored=True)
        except pygit2.GitError as exc:
            tree.problem = f"git cannot look for hand edits in this vault ({exc})"
            return tree
        head = self.head_commit()
        for path, flags in status.items():
            full = self.root / path
            if flags & FileStatus.IGNORED:
                if path.count("/") > MAX_FOLDERS:  # a folder ("a/.../z/") the rule left out
                    tree.too_deep.add(path.rstrip("/"))
            elif flags & _STAGED and self._as_in_head(full, head, path):
                # The index differs from HEAD (a write killed between moving HEAD and
                # writing the index, or a `git add`) while the file is as HEAD has it:
                # no change; the index is made to follow it.
                behind.add(path)
            elif flags & _GONE and not full.exists():
                tree.gone.add(path)
            else:
                tree.present.add(path)
        if behind:
            self.follow_paths(behind)
        return tree

    def _as_in_head(self, full: Path, head: pygit2.Commit | None, path: str) -> bool:
        try:
            info = full.lstat()
        except OSError:
            on_disk = None
        else:
            if not stat.S_ISREG(info.st_mode) or info.st_size > _HASHED_AT_MOST:
                return False  # not a note we would read: left to the sync to judge
            on_disk = pygit2.hash(full.read_bytes())
        return on_disk == self.blob_id(head.tree if head else None, path)

    def _leave_out_deep_folders(self) -> None:
        """Keep folders nested past MAX_FOLDERS out of every `git status` (ours and a
        person's): libgit2 cannot walk past 100 levels, and pygit2 offers neither an
        in-memory ignore rule nor a pathspec for status, so the rule goes where git
        keeps a repository's own, uncommitted ignore rules. One generic line, written
        once: `/*/*/.../*/` matches any folder exactly MAX_FOLDERS + 1 levels down."""
        exclude = Path(self.repo.path) / "info" / "exclude"
        try:
            text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
            if DEEP_FOLDERS_RULE in text.splitlines():
                return
            exclude.parent.mkdir(parents=True, exist_ok=True)
            line = "" if not text or text.endswith("\n") else "\n"
            atomic_write(
                exclude, f"{text}{line}{_DEEP_FOLDERS_NOTE}\n{DEEP_FOLDERS_RULE}\n".encode()
            )
        except OSError as exc:
            log.warning("cannot keep deep folders out of git status (%s)", exc)

    # -- writing -------------------------------------------------------------------------

    def blob(self, data: bytes) -> pygit2.Oid:
        return self.repo.create_blob(data)

    def commit(
        self,
        changes: Mapping[str, pygit2.Oid | None],
        message: str,
        author: Author,
    ) -> pygit2.Commit:
        """One commit on HEAD that sets each path to a blob (None removes it). The
        working tree must already hold the new files; the git index follows them."""
        return self.land(self.prepare(changes, message, author))

    def prepare(
        self, changes: Mapping[str, pygit2.Oid | None], message: str, author: Author
    ) -> PreparedCommit:
        """The commit `commit` would make, written to the object store but not on HEAD
        yet: `land` puts it there (storage.vault.journal writes the files in between)."""
        head = self.head_commit()
        nested: _TreeChanges = {}
        for path, oid in changes.items():
            *folders, name = path.split("/")
            node = nested
            for folder in folders:
                child = node.setdefault(folder, {})
                assert isinstance(child, dict)
                node = child
            node[name] = oid
        built: dict[pygit2.Oid, pygit2.TreeBuilder] = {}
        tree_id = self._build_tree(head.tree if head else None, nested, built)
        self._builders = built
        tree_id = tree_id or self._empty_tree()
        now = datetime.now(UTC)
        prepared = PreparedCommit(
            pygit2.Oid(hex="0" * 40),
            tuple(changes),
            tree_id,
            message,
            signature(author, now),
            signature(BOT_AUTHOR, now),
            head.id if head else None,
        )
        commit_id = self._create_commit(None, prepared)
        return dataclasses.replace(prepared, id=commit_id)

    def land(self, prepared: PreparedCommit) -> pygit2.Commit:
        """Move HEAD to a prepared commit (StorageError when HEAD moved since it was
        prepared) and bring the git index up to date for its paths."""
        commit_id = self._create_commit("HEAD", prepared)
        assert commit_id == prepared.id  # the same inputs make the same commit
        self.follow_paths(prepared.paths)
        commit = self.repo[commit_id]
        assert isinstance(commit, pygit2.Commit)
        return commit

    def _create_commit(self, ref: str | None, prepared: PreparedCommit) -> pygit2.Oid:
        parents = [] if prepared.parent is None else [prepared.parent]
        try:
            return self.repo.create_commit(
                ref,
                prepared.author,
                prepared.committer,
                prepared.message,
                prepared.tree,
                parents,
            )
        except (pygit2.GitError, OSError) as exc:
            # libgit2 refuses when HEAD moved since we read it or a git command run by
            # hand holds its lock (GitError, OSError), or the disk is full (OSError).
            problem = f"the vault's history could not be written; try again ({exc})"
            raise StorageError(problem) from exc

    def _empty_tree(self) -> pygit2.Oid:
        return self.repo.TreeBuilder().write()

    def _build_tree(
        self,
        base: pygit2.Tree | None,
        changes: _TreeChanges,
        built: dict[pygit2.Oid, pygit2.TreeBuilder],
    ) -> pygit2.Oid | None:
        """`base` with `changes` made, written; each builder used is kept in `built`."""
        builder = self._builders.pop(base.id, None) if base is not None else None
        if builder is None:
            builder = self.repo.TreeBuilder(base) if base is not None else self.repo.TreeBuilder()
        for name, change in changes.items():
            if isinstance(change, dict):
                sub_base = base[name] if base is not None and name in base else None
                sub_tree = sub_base if isinstance(sub_base, pygit2.Tree) else None
                sub_id = self._build_tree(sub_tree, change, built)
                if sub_id is not None:
                    builder.insert(name, sub_id, FileMode.TREE)
                elif builder.get(name) is not None:
                    builder.remove(name)
            elif change is None:
                if builder.get(name) is not None:
                    builder.remove(name)
            else:
                builder.insert(name, change, FileMode.BLOB)
        # git has no empty folders: a tree left empty disappears from its parent.
        if not len(builder):
            return None
        tree_id = builder.write()
        built[tree_id] = builder
        return tree_id
