"""A change of one or many files lands whole (one commit) or not at all, through a
kill or a full disk at any point.

Before the working tree is touched, the change's commit is built (blobs, trees and
the commit object; HEAD does not move yet) and a journal naming every path with its
blob before and after is put in place whole (a rename) as `.git/brainbot-journal.json`.
Then:

1. each new content goes to a hidden temp file beside its path (`.bbtmp`, ignored by
   git): every write that needs free space happens here, before any note changes;
   the journal, its folder's entry and each temp file are synced side by side
   (`_Syncs`), and step 2 starts once all are on the disk: a power cut before it
   leaves at most a journal that cannot be read or names a change no file shows yet
   (both undone), never a switched file without its journal, nor a switched file
   whose content is not on the disk;
2. each path is switched: the file there is hard-linked to a hidden backup, then the
   temp file is renamed over it; removals come last (the file is renamed to its
   backup). A new path appears before an old one goes. The folders are synced;
3. HEAD moves to the prepared commit (libgit2 refuses if HEAD moved meanwhile);
4. the backups are deleted, and the journal once the git index follows the commit.

Step 3 is the moment the change happens. `settle` (run whenever the vault lock is
taken, so before any read of the vault's state, any write and any outside-edit
commit: a half-done change is never committed as a hand edit) finds a journal a kill
or a failure left and finishes it: when HEAD is the
journal's commit the change landed, and only backups and the git index are tidied;
otherwise every journalled path that holds what the change wrote gets back what it
held, from its backup (a rename: no free space needed) or from its blob. Back, not
forward: a change that never committed was never confirmed to anyone, and the event
that asked for it is resumed or its approval reopened (app.recovery), so the
person sees it done once or is asked again. A path holding neither state was edited
by hand after the crash and is kept as it is.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pygit2

from storage.entry import Author
from storage.errors import StorageError
from storage.vault.atomic import TEMP_SUFFIX, atomic_write, fsync_dir, prune_empty, remove_file
from storage.vault.gitrepo import GitRepo

log = logging.getLogger(__name__)

JOURNAL_NAME = "brainbot-journal.json"
# Each fsync waits for the disk (a few milliseconds on a busy one): those a change needs
# before its next step run side by side here, so a capture waits twice, not four times.
_SYNCING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="brainbot-fsync")
_SYNCING_AT_MOST = 64  # files held open for their fsync (an import stages thousands)


@dataclass(frozen=True, slots=True)
class Step:
    """One path of a change: its blob before and after (None: absent)."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Journal:
    token: str  # names this change's temp files and backups
    commit: str
    steps: tuple[Step, ...]

    def temp(self, root: Path, number: int) -> Path:
        return _beside(root / self.steps[number].path, f"{self.token}-{number}{TEMP_SUFFIX}")

    def backup(self, root: Path, number: int) -> Path:
        return _beside(root / self.steps[number].path, f"{self.token}-{number}.old{TEMP_SUFFIX}")


def _beside(full: Path, suffix: str) -> Path:
    # Hidden, in the same folder (a rename within one file system), and never a note.
    return full.with_name(f".{full.name[:200]}.{suffix}")


Contents = Mapping[str, bytes | pygit2.Oid | None]


def land_files(git: GitRepo, files: Contents, message: str, author: Author) -> pygit2.Commit:
    """Write each file (its bytes, or a blob already in the object store; None removes
    it) and commit them all as one commit, as the module doc tells; on a failure the
    files are as they were and it is raised. The caller holds the vault lock, which
    settles any earlier change first."""
    steps = []
    for rel, data in files.items():
        old = _read_or_none(git.root / rel)
        before = None if old is None else str(git.blob(old))
        after = data if data is None or isinstance(data, pygit2.Oid) else git.blob(data)
        steps.append(Step(rel, before, None if after is None else str(after)))
    changes = {s.path: None if s.after is None else pygit2.Oid(hex=s.after) for s in steps}
    prepared = git.prepare(changes, message, author)
    journal = Journal(secrets.token_hex(4), str(prepared.id), tuple(steps))
    syncs = _Syncs()
    _write_journal(git, journal, syncs)
    try:
        _stage(git, journal, files, syncs)
        _switch(git.root, journal, syncs)
        commit = git.land(prepared)
    except BaseException as exc:
        syncs.close()
        if not _settle(git, journal) or not isinstance(exc, Exception):
            raise
        log.warning("the change landed although a late step failed (%s)", exc)
        return git.find_commit(journal.commit)
    _finish(git, journal, ())
    return commit


def land_commit(git: GitRepo, commit_id: pygit2.Oid) -> pygit2.Commit:
    """Bring the working tree and HEAD to a commit already in the object store (a
    merge, or a remote's commit to fast-forward to) the way `land_files` lands a
    change: journal, files, then HEAD; on a failure the files are as they were and
    it is raised. The caller holds the vault lock."""
    target = git.find_commit(str(commit_id))
    head = git.head_commit()
    changes = git.diff(head.tree if head else None, target.tree)
    for change in changes:
        _check_tree_path(change.path)
    steps = tuple(
        Step(c.path, None if c.old is None else str(c.old), None if c.new is None else str(c.new))
        for c in changes
    )
    files: dict[str, bytes | pygit2.Oid | None] = {c.path: c.new for c in changes}
    journal = Journal(secrets.token_hex(4), str(target.id), steps)
    syncs = _Syncs()
    _write_journal(git, journal, syncs)
    try:
        _stage(git, journal, files, syncs)
        _switch(git.root, journal, syncs)
        _move_head(git, target.id, None if head is None else head.id)
        git.follow_paths([c.path for c in changes])
    except BaseException as exc:
        syncs.close()
        if not _settle(git, journal) or not isinstance(exc, Exception):
            raise
        log.warning("the change landed although a late step failed (%s)", exc)
        return target
    _finish(git, journal, ())
    return target


def _check_tree_path(path: str) -> None:
    """Refuse a path from a commit made elsewhere that would write outside the working
    tree or into git's own folder (`.git/hooks/...`: git's tools refuse to make such a
    tree, a hostile remote can), as git's own checkout does."""
    parts = path.split("/")
    if path.startswith("/") or any(
        part in {"", ".", ".."} or part.lower().rstrip(". ") == ".git" for part in parts
    ):
        raise StorageError(f"the commit holds a path that is never written: {path!r}")


def _move_head(git: GitRepo, target: pygit2.Oid, expected: pygit2.Oid | None) -> None:
    """Point the vault's branch at `target`, a commit already in the object store;
    StorageError when HEAD is no longer `expected`."""
    head = git.head_commit()
    if (None if head is None else head.id) != expected:
        raise StorageError("the vault's history moved meanwhile; try again")
    branch = git.repo.references.get("HEAD")
    name = branch.target if branch is not None and isinstance(branch.target, str) else None
    try:
        git.repo.create_reference(name or "refs/heads/main", target, force=True)
    except (pygit2.GitError, OSError) as exc:
        problem = f"the vault's history could not be written; try again ({exc})"
        raise StorageError(problem) from exc


def settle(git: GitRepo) -> None:
    """Finish a change a kill or a failure cut short (see the module doc), if any;
    one failed `stat` when there is none."""
    path = _journal_path(git)
    try:
        raw = json.loads(path.read_bytes())
        journal = Journal(raw["token"], raw["commit"], tuple(Step(*step) for step in raw["steps"]))
    except FileNotFoundError:
        return
    except (ValueError, KeyError, TypeError) as exc:
        # Put in place whole by a rename, and synced before any file is switched:
        # unreadable means a damaged disk, or a power cut before it was synced (no file
        # was switched yet). Nothing to replay either way.
        log.error("the vault's change journal is unreadable (%s); set aside", exc)
        path.replace(path.with_suffix(".broken"))
        return
    landed = _settle(git, journal)
    what = "finished" if landed else "undone"
    log.warning("a change of %d file(s) cut short was %s", len(journal.steps), what)


def _settle(git: GitRepo, journal: Journal) -> bool:
    """Put every journalled path in its committed state; True if the change landed."""
    head = git.head_commit()
    landed = head is not None and str(head.id) == journal.commit
    for number, step in enumerate(journal.steps):
        full = git.root / step.path
        backup = journal.backup(git.root, number)
        state = _state(full)
        if landed and state == step.before != step.after:
            _put(git, full, step.after, None)  # the switch did not reach the disk
        elif not landed and state == step.after:
            _put(git, full, step.before, backup)
    _finish(git, journal, [step.path for step in journal.steps] if landed else [])
    fsync_dir(_journal_path(git).parent)
    return landed


def _put(git: GitRepo, full: Path, blob: str | None, backup: Path | None) -> None:
    if blob is None:
        remove_file(full, stop_at=git.root)
    elif backup is not None and backup.is_file():
        os.replace(backup, full)
        fsync_dir(full.parent)
    else:
        atomic_write(full, git.blob_data(pygit2.Oid(hex=blob)))


def _stage(git: GitRepo, journal: Journal, files: Contents, syncs: _Syncs) -> None:
    """Write each new content to a temp file, each synced while the next is written,
    the last in this thread; then wait until all and the journal are on the disk."""
    last: Path | None = None
    for number, step in enumerate(journal.steps):
        data = files[step.path]
        if data is None:
            continue
        if isinstance(data, pygit2.Oid):
            data = git.blob_data(data)  # one at a time: an import may hold gigabytes
        temp = journal.temp(git.root, number)
        temp.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if last is not None:
            syncs.add(last)
        last = temp
    syncs.finish(last)


def _switch(root: Path, journal: Journal, syncs: _Syncs) -> None:
    """Switch each path, then sync their folders (step 2)."""
    folders: set[Path] = set()
    order = sorted(range(len(journal.steps)), key=lambda n: journal.steps[n].after is None)
    for number in order:
        step = journal.steps[number]
        full = root / step.path
        backup = journal.backup(root, number)
        if step.after is None:
            with contextlib.suppress(FileNotFoundError):
                os.replace(full, backup)
        else:
            if step.before is not None:
                with contextlib.suppress(OSError):
                    # No hard links on this file system: the blob is the backup then.
                    os.link(full, backup)
            os.replace(journal.temp(root, number), full)
        folders.add(full.parent)
    others = sorted(folders)
    last = others.pop() if others else None
    for folder in others:
        syncs.add(folder, folder=True)
    syncs.finish(last, folder=True)


def _finish(git: GitRepo, journal: Journal, paths: Sequence[str]) -> None:
    """Drop the backups, then the journal once the git index follows `paths` (and any
    earlier commit's) on disk. If the index cannot be written (a full disk), the
    journal stays and tells the next `settle` (here or after a restart) which paths
    the index still has to follow, or `git status` and the next sync would take the
    change for a hand edit."""
    _drop_backups(git.root, journal)
    if git.follow_paths(paths):
        _journal_path(git).unlink(missing_ok=True)


def _drop_backups(root: Path, journal: Journal) -> None:
    """Delete the backups (and temp files) and any folder a removal or a rollback
    left empty. Not synced: a backup that comes back after a power cut is a hidden
    `.bbtmp` file that git ignores."""
    for number, step in enumerate(journal.steps):
        journal.temp(root, number).unlink(missing_ok=True)
        journal.backup(root, number).unlink(missing_ok=True)
        if step.before is None or step.after is None:
            prune_empty((root / step.path).parent, root)


def _write_journal(git: GitRepo, journal: Journal, syncs: _Syncs) -> None:
    """Put the journal in place, before any temp file it names exists (a kill after
    leaves none that `settle` cannot find); it syncs in `syncs` while they are written."""
    steps = [[s.path, s.before, s.after] for s in journal.steps]
    raw = {"token": journal.token, "commit": journal.commit, "steps": steps}
    path = _journal_path(git)
    temp = _journal_temp(git)
    try:
        with open(temp, "wb") as handle:
            handle.write(json.dumps(raw).encode("utf-8"))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    syncs.add(path)
    syncs.add(path.parent, folder=True)


class _Syncs:
    """fsyncs that run side by side, in threads, until `wait`: a file's content (an
    error is raised by `wait`) or a folder's entries (best effort, as `fsync_dir`).
    The next step is taken after `wait`, so on the disk it stays after them."""

    def __init__(self) -> None:
        self._pending: list[tuple[int, Future[None], bool]] = []

    def add(self, path: Path, *, folder: bool = False) -> None:
        """Start syncing `path`, a file written and closed, or a folder."""
        if len(self._pending) >= _SYNCING_AT_MOST:
            self.wait()
        fd = self._open(path, folder)
        if fd is not None:
            # os.fsync itself runs in the thread: it waits for the disk without the GIL.
            self._pending.append((fd, _SYNCING.submit(os.fsync, fd), folder))

    def finish(self, path: Path | None, *, folder: bool = False) -> None:
        """Sync `path` (if any) here, the one fsync not handed over; `wait` for the rest."""
        try:
            if path is not None and folder:
                fsync_dir(path)
            elif path is not None:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        finally:
            self.wait()

    @staticmethod
    def _open(path: Path, folder: bool) -> int | None:
        try:
            return os.open(path, os.O_RDONLY)
        except OSError:
            if folder:
                return None
            raise

    def wait(self) -> None:
        """Wait for every fsync started; the first file's error is raised once all ended."""
        pending, self._pending = self._pending, []
        errors = []
        for fd, syncing, folder in pending:
            error = syncing.exception()
            os.close(fd)
            if error is not None and not folder:
                errors.append(error)
        if errors:
            raise errors[0]

    def close(self) -> None:
        """`wait`, whatever failed: a change cut short is undone whatever reached the disk."""
        with contextlib.suppress(OSError):
            self.wait()


def _journal_path(git: GitRepo) -> Path:
    return Path(git.repo.path) / JOURNAL_NAME


def _journal_temp(git: GitRepo) -> Path:
    return Path(git.repo.path) / f".{JOURNAL_NAME}{TEMP_SUFFIX}"  # one change at a time


def recover(git: GitRepo) -> None:
    """`settle`, and delete the journal's temp file a kill left before it was in place
    (no file was touched yet then). For the vault's opening: a write in this process
    that fails there deletes it itself."""
    settle(git)
    _journal_temp(git).unlink(missing_ok=True)


def files_cut_short(root: Path) -> int | None:
    """How many files the change a kill or a failure cut short in the vault at `root`
    names, while its journal waits for `settle` (the vault's next opening); None when
    none waits, or none that can be read (`settle` sets such a one aside). Only looks
    (for `brainbot doctor`): nothing is settled here."""
    try:
        raw = json.loads((root / ".git" / JOURNAL_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    steps = raw.get("steps") if isinstance(raw, dict) else None
    return len(steps) if isinstance(steps, list) and steps else None


def settle_folder(root: Path) -> None:
    """`settle` for a vault folder no Vault has open (the backup's restore at start,
    which must not merge into a half-done change)."""
    if (root / ".git" / JOURNAL_NAME).is_file():
        settle(GitRepo(root))


def _state(full: Path) -> str | None:
    data = _read_or_none(full)
    return None if data is None else str(pygit2.hash(data))


def _read_or_none(full: Path) -> bytes | None:
    try:
        return full.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
