"""Backups of the vault to a git remote (BRAINBOT_GIT_REMOTE).

- At start, before the index opens, `VaultBackup.restore` fetches the remote's
  branch and brings the vault up to date: a fast-forward when only the remote
  moved, a merge commit when both did. A merge that conflicts is abandoned (the
  vault stays as it was) and the remote's side is kept on a local branch
  `brainbot/conflict-<sha>`: nothing is lost, the log says how to merge it by
  hand, and `brainbot doctor` reports it until it is merged.
- While running, `BackupPusher` watches the vault's HEAD and pushes once it has
  been quiet for a few seconds (a burst of captures is one push), retrying with
  exponential backoff. It runs beside the write path: a capture never waits for a
  push, and a push that fails never fails a capture. When the remote has moved on
  (another machine pushed), the vault's branch goes to `brainbot/unmerged-<branch>`
  on the remote instead, so the backup still happens; the next start merges.
- The git CLI is used (the person's credential helpers, SSH config and proxies
  apply), with the remote URL passed on each call, so a token in it is never written
  to `.git/config`; author and committer are explicit (a container has no git
  identity) and git never prompts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import subprocess
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pygit2

from storage.entry import BOT_AUTHOR
from storage.vault.atomic import VaultLock
from storage.vault.journal import settle_folder

log = logging.getLogger(__name__)

CONFLICT_PREFIX = "brainbot/conflict-"
UNMERGED_PREFIX = "brainbot/unmerged-"
MOVED_ON = ("(fetch first)", "(non-fast-forward)")
# The last push failure, kept beside the vault's git data for `brainbot doctor`.
PUSH_ERROR_FILE = "brainbot-push-error"
REMOTE_REF = "refs/remotes/backup/"
GIT_TIMEOUT = 120.0


class BackupError(Exception):
    """A git command against the backup remote failed; `detail` is git's own words."""

    def __init__(self, action: str, detail: str) -> None:
        super().__init__(f"{action}: {detail}")
        self.action = action
        self.detail = detail


@dataclass(frozen=True, slots=True)
class RestoreResult:
    """What `restore` did: up-to-date, fast-forward, merged, pushed, conflict, or
    empty-remote; `branch` names the conflict branch when there is one."""

    outcome: str
    detail: str = ""
    branch: str | None = None


def display_url(url: str) -> str:
    """The remote without credentials, for messages."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _git_env() -> Mapping[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME=BOT_AUTHOR.name,
        GIT_AUTHOR_EMAIL=BOT_AUTHOR.email,
        GIT_COMMITTER_NAME=BOT_AUTHOR.name,
        GIT_COMMITTER_EMAIL=BOT_AUTHOR.email,
        GIT_TERMINAL_PROMPT="0",  # a missing password fails the push instead of hanging
        GIT_MERGE_AUTOEDIT="no",
    )
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


class VaultBackup:
    """The git operations of the backup for one vault folder (blocking: run them in a
    thread). Holds the vault's lock while it changes the working tree."""

    def __init__(self, root: Path, remote: str, *, timeout: float = GIT_TIMEOUT) -> None:
        self.root = root
        self.remote = remote
        self.timeout = timeout
        self._env = _git_env()

    # -- git ---------------------------------------------------------------------------

    def git(
        self,
        *args: str,
        check: bool = True,
        timeout: float | None = None,
        where: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run `git -C vault args...`; BackupError with git's message when it fails."""
        try:
            done = subprocess.run(
                ["git", "-C", str(where or self.root), *args],
                capture_output=True,
                text=True,
                env=self._env,
                timeout=timeout or self.timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackupError(f"git {args[0]}", str(exc)) from exc
        if check and done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().replace(self.remote, self.shown)
            raise BackupError(f"git {args[0]}", detail or f"exit code {done.returncode}")
        return done

    @property
    def shown(self) -> str:
        return display_url(self.remote)

    def branch(self) -> str:
        """The vault's current branch (main for vaults brainbot created)."""
        name = self.git("symbolic-ref", "--short", "HEAD").stdout.strip()
        return name or "main"

    def head(self) -> str | None:
        """The vault's HEAD commit (None before the first); read through libgit2, as it
        is polled every second."""
        try:
            repo = pygit2.Repository(str(self.root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
        except pygit2.GitError:
            return None
        return None if repo.head_is_unborn else str(repo.head.target)

    def _lock(self) -> VaultLock:
        git_dir = self.root / ".git"
        git_dir.mkdir(parents=True, exist_ok=True)
        return VaultLock(git_dir / "brainbot.lock", lambda: settle_folder(self.root))

    # -- at start ------------------------------------------------------------------------

    def restore(self) -> RestoreResult:
        """Fetch the remote and merge it into the vault (see the module doc)."""
        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.root / ".git").exists():
            self.git("init", "--quiet", "--initial-branch=main")
        with self._lock().hold():
            branch = self.branch()
            theirs = self._fetch(branch)
            if theirs is None:
                return RestoreResult("empty-remote", f"{self.shown} has no branch {branch} yet")
            ours = self.head()
            if ours == theirs or (ours and self._contains(ours, theirs)):
                return RestoreResult("up-to-date" if ours == theirs else "ahead")
            if ours is None or self._contains(theirs, ours):
                self.git("merge", "--ff-only", "--quiet", theirs)
                log.info("vault fast-forwarded to %s from %s", theirs[:12], self.shown)
                return RestoreResult("fast-forward", theirs)
            return self._merge(branch, theirs)

    def _fetch(self, branch: str) -> str | None:
        """Fetch the remote's branch into refs/remotes/backup/<branch>; its sha, or
        None when the remote does not have it (a new, empty repository)."""
        listed = self.git("ls-remote", "--heads", self.remote, f"refs/heads/{branch}")
        if not listed.stdout.strip():
            return None
        self.git(
            "fetch",
            "--quiet",
            "--no-tags",
            self.remote,
            f"+refs/heads/{branch}:{REMOTE_REF}{branch}",
        )
        return self.git("rev-parse", f"{REMOTE_REF}{branch}").stdout.strip()

    def _contains(self, descendant: str, ancestor: str) -> bool:
        done = self.git("merge-base", "--is-ancestor", ancestor, descendant, check=False)
        return done.returncode == 0

    def _merge(self, branch: str, theirs: str) -> RestoreResult:
        merged = self.git(
            "merge",
            "--no-edit",
            "--allow-unrelated-histories",
            "-m",
            f"merge {branch} from the backup remote",
            theirs,
            check=False,
        )
        if merged.returncode == 0:
            log.info("vault merged with %s (%s)", self.shown, theirs[:12])
            return RestoreResult("merged", theirs)
        self.git("merge", "--abort", check=False)
        keep = f"{CONFLICT_PREFIX}{theirs[:12]}"
        self.git("branch", "--force", keep, theirs)
        detail = (merged.stdout + merged.stderr).strip().replace(self.remote, self.shown)
        log.error(
            "the vault and its backup at %s both changed and do not merge cleanly; nothing "
            "was lost: the remote's version is on branch %s. Merge it by hand: "
            "git -C %s merge %s (git said: %s)",
            self.shown,
            keep,
            self.root,
            keep,
            detail.splitlines()[-1] if detail else "conflict",
        )
        return RestoreResult("conflict", detail, keep)

    def conflicts(self) -> list[str]:
        """Conflict branches not merged into the vault's branch yet."""
        done = self.git(
            "branch", "--no-merged", "HEAD", "--format=%(refname:short)", f"{CONFLICT_PREFIX}*"
        )
        return [line.strip() for line in done.stdout.splitlines() if line.strip()]

    # -- while running -------------------------------------------------------------------

    def push(self, timeout: float | None = None, *, side_branch: bool = True) -> str:
        """Push the vault's branch; when the remote moved on, push it to the side branch
        instead (unless not `side_branch`: the sync merges first then). Returns the ref
        pushed to; BackupError when neither push worked."""
        branch = self.branch()
        try:
            self.git("push", "--quiet", self.remote, f"HEAD:refs/heads/{branch}", timeout=timeout)
            return branch
        except BackupError as exc:
            # Only a remote that moved on goes to the side branch. "[remote rejected]"
            # (a hook, a protected branch, no permission) is a failure like any other.
            if not side_branch or not any(why in exc.detail for why in MOVED_ON):
                raise
        side = f"{UNMERGED_PREFIX}{branch}"
        self.git(
            "push", "--quiet", "--force", self.remote, f"HEAD:refs/heads/{side}", timeout=timeout
        )
        log.warning(
            "%s has changes this vault does not; pushed to %s instead. They are merged at "
            "the next start.",
            self.shown,
            side,
        )
        return side

    def backed_up(self) -> str | None:
        """None when the remote holds this vault's HEAD (on its branch or the side
        branch); else what is wrong, with the last push error brainbot recorded."""
        head = self.head()
        if head is None:
            return None
        branch = self.branch()
        listed = self.git(
            "ls-remote",
            self.remote,
            f"refs/heads/{branch}",
            f"refs/heads/{UNMERGED_PREFIX}{branch}",
        ).stdout
        if head in {line.split("\t", 1)[0] for line in listed.splitlines()}:
            return None
        error_file = self.root / ".git" / PUSH_ERROR_FILE
        last = error_file.read_text().strip() if error_file.is_file() else ""
        return f"the backup lacks the vault's latest change ({head[:10]})" + (
            f"; the last push failed: {last}" if last else ""
        )

    def record_push(self, error: str | None) -> None:
        """Keep the last push failure for `brainbot doctor` (None: it worked)."""
        error_file = self.root / ".git" / PUSH_ERROR_FILE
        if error is None:
            error_file.unlink(missing_ok=True)
        else:
            error_file.write_text(error + "\n")

    def reachable(self) -> None:
        """Raise BackupError when the remote cannot be listed (for `brainbot doctor`);
        works before the vault exists."""
        self.git("ls-remote", "--heads", self.remote, where=Path.cwd())


class BackupPusher:
    """Push after changes, batched and retried (see the module doc)."""

    def __init__(
        self,
        backup: VaultBackup,
        *,
        debounce: float = 5.0,
        max_delay: float = 60.0,
        poll: float = 1.0,
        max_backoff: float = 300.0,
        on_push: Callable[[bool], None] | None = None,
        moved_on: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.backup = backup
        # Called when the remote has commits the vault lacks: a round of two-way sync
        # that merges them and pushes (True when it did), instead of the side branch.
        self.moved_on = moved_on
        self.debounce = debounce
        self.max_delay = max_delay
        self.poll = poll
        self.max_backoff = max_backoff
        self.on_push = on_push
        self.pushed: str | None = None  # the head the remote has
        self.failures = 0
        self.last_error: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, pushed: str | None = None) -> None:
        """Watch from now on; `pushed` is the head known to be on the remote."""
        self.pushed = pushed
        self._task = asyncio.create_task(self._watch(), name="vault-backup")

    async def stop(self, *, push_within: float = 15.0) -> None:
        """Stop watching, then one last push of anything unpushed (git is given
        `push_within` seconds)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        head = await asyncio.to_thread(self.backup.head)
        if head is not None and head != self.pushed:
            await self._push(head, push_within)

    async def _watch(self) -> None:
        seen: str | None = None
        changed_at = first_at = 0.0
        retry_at = 0.0
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.poll)
            now = loop.time()
            head = await asyncio.to_thread(self.backup.head)
            if head is None or head == self.pushed:
                first_at = 0.0
                continue
            if head != seen:
                seen, changed_at = head, now
                first_at = first_at or now
            quiet = now - changed_at >= self.debounce
            overdue = now - first_at >= self.max_delay
            if (quiet or overdue) and now >= retry_at and not await self._push(head):
                backoff = min(self.max_backoff, self.debounce * 2**self.failures)
                retry_at = now + backoff * random.uniform(0.8, 1.2)

    async def _push(self, head: str, git_timeout: float | None = None) -> bool:
        try:
            await asyncio.to_thread(
                partial(self.backup.push, git_timeout, side_branch=self.moved_on is None)
            )
        except BackupError as exc:
            if await self._merged_instead(exc):
                return self._pushed(head)
            self.failures += 1
            self.last_error = str(exc)
            log.error(
                "vault backup to %s failed (attempt %d): %s", self.backup.shown, self.failures, exc
            )
            await asyncio.to_thread(self.backup.record_push, str(exc))
            if self.on_push is not None:
                self.on_push(False)
            return False
        await asyncio.to_thread(self.backup.record_push, None)
        return self._pushed(head)

    async def _merged_instead(self, exc: BackupError) -> bool:
        """Whether the remote moved on and the sync merged and pushed instead."""
        if self.moved_on is None or not any(why in exc.detail for why in MOVED_ON):
            return False
        return await self.moved_on()

    def _pushed(self, head: str) -> bool:
        if self.failures:
            log.info("vault backup to %s works again", self.backup.shown)
        self.pushed, self.failures, self.last_error = head, 0, None
        if self.on_push is not None:
            self.on_push(True)
        return True
