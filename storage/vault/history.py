"""Reading the vault's history: commits as `Change`s, and commit messages."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pygit2
from pygit2.enums import SortMode

from storage.entry import BOT_AUTHOR, Change
from storage.vault.gitrepo import GitRepo

_OPERATION = re.compile(r"^([a-z][a-z0-9_-]*)\b")
_MOVE_SUBJECT = re.compile(r"^move (.+) -> (.+)$")
# What a commit made outside brainbot (Obsidian's git plugin, a `git pull`) is called.
OUTSIDE_OPERATION = "edit"


def commit_message(subject: str, source: Mapping[str, object] | str | None, note: str = "") -> str:
    """`<operation> <path(s)>`, a blank line, then an optional note and the source:
    `source: slack chat_id=C123 message_id=1700000000.1234`."""
    lines = note.strip().splitlines()
    source_text = describe_source(source)
    if source_text:
        lines.append(f"source: {source_text}")
    return subject + ("\n\n" + "\n".join(lines) if lines else "") + "\n"


def describe_source(source: Mapping[str, object] | str | None) -> str:
    """A one-line description of where a change came from (platform first)."""
    if source is None:
        return ""
    if isinstance(source, str):
        return " ".join(source.split())
    parts: list[str] = []
    platform = source.get("platform")
    if platform:
        parts.append(str(platform))
    for key, value in source.items():
        if key != "platform" and value not in (None, ""):
            parts.append(f"{key}={value}")
    return " ".join(" ".join(parts).split())


def change_from_commit(git: GitRepo, commit: pygit2.Commit) -> Change:
    """A commit as a `Change`: operation from the subject (for brainbot's own commits),
    the paths it touched compared with its first parent, author and time."""
    subject = commit.message.split("\n", 1)[0].strip()
    ours = commit.committer.name == BOT_AUTHOR.name
    match = _OPERATION.match(subject) if ours else None
    parent_tree = commit.parents[0].tree if commit.parents else None
    paths = tuple(sorted(change.path for change in git.diff(parent_tree, commit.tree)))
    return Change(
        commit=str(commit.id),
        operation=match.group(1) if match else OUTSIDE_OPERATION,
        paths=paths,
        message=commit.message,
        author=commit.author.name,
        when=datetime.fromtimestamp(commit.author.time, UTC),
        parent=first_parent(commit),
    )


def first_parent(commit: pygit2.Commit) -> str | None:
    """The commit `commit` was made on (None for a vault's first)."""
    return str(commit.parent_ids[0]) if commit.parent_ids else None


def history(git: GitRepo, path: str | None, limit: int) -> list[Change]:
    """Changes newest first; with a path, only those that touched it, following the
    note back through moves."""
    head = git.head_commit()
    if head is None or limit <= 0:
        return []
    out: list[Change] = []
    following = path
    for commit in git.repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.TIME):
        if len(out) >= limit:
            break
        if following is None:
            out.append(change_from_commit(git, commit))
            continue
        parent = commit.parents[0] if commit.parents else None
        if parent is not None and _same_top_folder(commit.tree, parent.tree, following):
            continue
        here = git.blob_id(commit.tree, following)
        before = git.blob_id(parent.tree, following) if parent is not None else None
        if here == before:
            continue
        out.append(change_from_commit(git, commit))
        if before is None and here is not None:
            following = _moved_from(git, commit, following) or following
    return out


def _same_top_folder(a: pygit2.Tree, b: pygit2.Tree, path: str) -> bool:
    # Cheap test first: most commits leave the note's whole folder untouched.
    top = path.split("/", 1)[0]
    if top == path or top not in a or top not in b:
        return False
    return a[top].id == b[top].id


def _moved_from(git: GitRepo, commit: pygit2.Commit, path: str) -> str | None:
    subject = commit.message.split("\n", 1)[0].strip()
    match = _MOVE_SUBJECT.match(subject)
    if match and match.group(2) == path and commit.committer.name == BOT_AUTHOR.name:
        return match.group(1)
    return git.renamed_from(commit, path)


# Commits a little older than asked for are read too: clocks of hosts differ.
CLOCK_SLACK = timedelta(minutes=5)


def commits_since_mention(git: GitRepo, text: str, since: datetime) -> bool:
    """Whether a commit made since `since` has `text` in a line of its message (or at its
    end); the walk stops at the first older commit, so it costs what came since."""
    head = git.head_commit()
    if head is None:
        return False
    oldest = (since if since.tzinfo else since.replace(tzinfo=UTC)) - CLOCK_SLACK
    for commit in git.repo.walk(head.id, SortMode.TIME):
        if datetime.fromtimestamp(commit.commit_time, UTC) < oldest:
            return False
        if any(line.endswith(text) or f"{text} " in line for line in commit.message.splitlines()):
            return True
    return False
