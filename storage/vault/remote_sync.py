"""Two-way sync of a vault with its git remote (BRAINBOT_GIT_REMOTE), so a person's
devices (Obsidian with obsidian-git, Working Copy, plain git) and the bot edit the
same notes.

One round, for one vault (blocking: run it in a thread):
1. `git ls-remote` of the vault's branch, compared with the remote head seen last
   time and the vault's HEAD: when nothing is new, that one listing is all the
   round costs (no fetch);
2. otherwise a fetch of the branch into `refs/remotes/backup/<branch>` (objects and
   a remote-tracking ref: git writes both atomically, and the notes are not touched);
3. the merge, under the vault lock and through the journal (storage.vault.merging):
   both sides kept, conflicts as copies beside the note;
4. a push of the vault's branch; when the remote moved again meanwhile, the round
   starts over (a few times).

What happened is kept in `.git/brainbot-sync.json` (the remote head seen, when,
the last error, the conflicts of the last merge) for `brainbot doctor` and
`/readyz`. A remote that cannot be reached, refuses the push, or was force-pushed
is reported there and in the log; it never raises, so one vault's remote never
stops another's sync. The remote's URL is shown without credentials.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pygit2

from storage.errors import StorageError
from storage.vault.atomic import atomic_write
from storage.vault.backup import MOVED_ON, REMOTE_REF, BackupError, VaultBackup
from storage.vault.merging import MergeConflict, MergeResult
from storage.vault.vault import Vault

log = logging.getLogger(__name__)

STATUS_FILE = "brainbot-sync.json"
PLACEHOLDERS = ("{person}", "{vault}")
ROUNDS = 3  # the remote moving again between our fetch and our push


def remote_of(template: str | None, vault_name: str, *, owner: bool) -> str | None:
    """The vault's remote: BRAINBOT_GIT_REMOTE with `{person}` (or `{vault}`) filled
    in; without a placeholder only the owner's vault has one. None: no remote."""
    if not template:
        return None
    if not any(p in template for p in PLACEHOLDERS):
        return template if owner else None
    for placeholder in PLACEHOLDERS:
        template = template.replace(placeholder, vault_name)
    return template


@dataclass(frozen=True, slots=True)
class SyncStatus:
    """The last round's outcome for one vault, as kept in `.git/brainbot-sync.json`:
    `remote_head` the remote's commit seen, `changed_at` when this status last
    changed, `error` what went wrong (None: fine), `forced` the remote's history was
    rewritten (force-pushed) since seen before."""

    remote_head: str | None = None
    changed_at: float = 0.0
    error: str | None = None
    forced: bool = False
    conflicts: tuple[tuple[str, str], ...] = ()

    @classmethod
    def read(cls, root: Path) -> SyncStatus | None:
        """The status kept for the vault at `root`; None when no round ran yet."""
        try:
            raw: dict[str, Any] = json.loads((root / ".git" / STATUS_FILE).read_bytes())
            conflicts = tuple((str(a), str(b)) for a, b in raw.get("conflicts", ()))
            return cls(
                raw.get("remote_head"),
                float(raw.get("changed_at", 0.0)),
                raw.get("error"),
                bool(raw.get("forced", False)),
                conflicts,
            )
        except (OSError, ValueError, TypeError):
            return None

    def write(self, root: Path) -> None:
        atomic_write(root / ".git" / STATUS_FILE, json.dumps(asdict(self)).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class SyncRound:
    """What one round did: `outcome` (nothing-new, pushed, fast-forward, merged,
    adopted, empty-remote, failed), the vault's HEAD before and after, the conflicts
    kept as copies, and the problem when it failed or the remote was force-pushed."""

    outcome: str
    before: str | None
    after: str | None
    conflicts: tuple[MergeConflict, ...] = ()
    problem: str | None = None
    fetched: bool = False

    @property
    def moved(self) -> bool:
        """Whether the vault's notes changed (the index must follow)."""
        return self.before != self.after


class RemoteSync:
    """One vault's two-way sync with its remote (see the module doc)."""

    def __init__(self, vault: Vault, remote: str, *, timeout: float | None = None) -> None:
        self.vault = vault
        self.backup = VaultBackup(vault.root, remote, **({"timeout": timeout} if timeout else {}))

    @property
    def shown(self) -> str:
        """The remote's URL without credentials."""
        return self.backup.shown

    def run(self) -> SyncRound:
        """One round (see the module doc); never raises for a remote's failure."""
        before = self.vault.head()
        status = SyncStatus.read(self.vault.root) or SyncStatus()
        try:
            done = self._round(before, status)
        except (BackupError, StorageError) as exc:
            # StorageError: what came in cannot be merged into the vault (a path that is
            # never written); the vault stays as it was.
            problem = str(exc).replace(self.backup.remote, self.shown)
            log.error("sync of %s with %s failed: %s", self.vault.root.name, self.shown, problem)
            SyncStatus(
                status.remote_head, time.time(), problem, status.forced, status.conflicts
            ).write(self.vault.root)
            return SyncRound("failed", before, self.vault.head(), problem=problem)
        return done

    def _round(self, before: str | None, status: SyncStatus) -> SyncRound:
        branch = self._branch()
        conflicts: tuple[MergeConflict, ...] = ()
        forced = False
        outcome = "nothing-new"
        fetched = False
        for _ in range(ROUNDS):
            theirs = self._remote_head(branch)
            head = self.vault.head()
            if theirs is None:
                if head is not None and not self._push(branch):
                    continue  # someone pushed first: merge that
                self._record(head, None, forced, conflicts)
                return SyncRound("empty-remote", before, head)
            if theirs == head or self._has(theirs, head):
                if theirs != head:
                    if not self._push(branch):
                        continue
                    outcome = "pushed" if outcome == "nothing-new" else outcome
                self._record(head, None, forced, conflicts)
                return SyncRound(outcome, before, self.vault.head(), conflicts, fetched=fetched)
            if not self._known(theirs):
                self._fetch(branch)
                fetched = True
            if status.remote_head and self._known(status.remote_head):
                forced = forced or not self._contains(theirs, status.remote_head)
            merged = self.vault.merge_remote(theirs, f"merge {branch} from {self.shown}")
            conflicts += merged.conflicts
            outcome = _combined(outcome, merged)
            if merged.head != theirs and not self._push(branch):
                status = SyncStatus(theirs)
                continue  # the remote moved again: fetch and merge once more
            self._record(theirs if merged.head == theirs else merged.head, None, forced, conflicts)
            problem = f"{self.shown} was force-pushed; nothing was dropped" if forced else None
            if forced:
                log.warning("%s", problem)
            return SyncRound(
                outcome, before, self.vault.head(), conflicts, problem, fetched=fetched
            )
        raise BackupError("git push", f"{self.shown} kept moving; the next sync tries again")

    def _remote_head(self, branch: str) -> str | None:
        listed = self.backup.git("ls-remote", "--heads", self.backup.remote, f"refs/heads/{branch}")
        line = listed.stdout.strip().splitlines()
        return line[0].split("\t", 1)[0] if line else None

    def _fetch(self, branch: str) -> None:
        self.backup.git(
            "fetch",
            "--quiet",
            "--no-tags",
            self.backup.remote,
            f"+refs/heads/{branch}:{REMOTE_REF}{branch}",
        )

    def _push(self, branch: str) -> bool:
        """Push the branch; False when the remote moved on meanwhile (BackupError for
        any other refusal)."""
        try:
            self.backup.git("push", "--quiet", self.backup.remote, f"HEAD:refs/heads/{branch}")
        except BackupError as exc:
            if any(why in exc.detail for why in MOVED_ON):
                return False
            raise
        self.backup.record_push(None)
        return True

    def _branch(self) -> str:
        """The vault's branch, read through libgit2 (a round with nothing new is one
        `ls-remote`: no other git process)."""
        target = self._repo().references["HEAD"].target
        name = target if isinstance(target, str) else ""
        return name.removeprefix("refs/heads/") or "main"

    def _repo(self) -> pygit2.Repository:
        return pygit2.Repository(str(self.vault.root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)

    def _known(self, sha: str) -> bool:
        try:
            return self._repo().get(sha) is not None
        except (ValueError, pygit2.GitError):
            return False

    def _has(self, ancestor: str, head: str | None) -> bool:
        return head is not None and self._known(ancestor) and self._contains(head, ancestor)

    def _contains(self, descendant: str, ancestor: str) -> bool:
        repo = self._repo()
        return descendant == ancestor or repo.descendant_of(descendant, ancestor)

    def _record(
        self,
        remote_head: str | None,
        error: str | None,
        forced: bool,
        conflicts: tuple[MergeConflict, ...],
    ) -> None:
        # Conflicts of earlier rounds stay listed while their copies wait for a choice.
        earlier = SyncStatus.read(self.vault.root) or SyncStatus()
        waiting = [pair for pair in earlier.conflicts if (self.vault.root / pair[1]).is_file()]
        kept = tuple(dict.fromkeys([*waiting, *((c.path, c.copy) for c in conflicts)]))
        status = SyncStatus(remote_head, time.time(), error, forced, kept)
        if replace(status, changed_at=earlier.changed_at) != earlier:
            status.write(self.vault.root)  # a round with nothing new writes nothing


def _combined(outcome: str, merged: MergeResult) -> str:
    if merged.outcome in {"up-to-date", "ahead"}:
        return "pushed" if outcome == "nothing-new" else outcome
    return merged.outcome if outcome in {"nothing-new", "pushed"} else outcome
