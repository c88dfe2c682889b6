"""The vault room: Markdown notes in a git repository, the source of truth.

`vault.Vault` is its heart; beside it the note file format (`notefile`, `schema`),
path safety (`paths`), git (`gitrepo`, `commits`, `history`, `undo`, `gitlocks`),
crash-safe writes (`atomic`), imports, backups to a remote (`backup`) and the
two-way sync with it (`remote_sync`, `merging`).

Notes are read and written through `storage.Store`; this door lets out what the rest
of the house needs of the format itself (the fields brainbot keeps, a note's
sections, daily notes' names, paths) and of git beside the bot (backups, locks)."""

from storage.vault.backup import BackupError, BackupPusher, VaultBackup
from storage.vault.daily import DailyNotes, moment_format, with_line
from storage.vault.gitlocks import git_at_work, lock_files
from storage.vault.journal import files_cut_short
from storage.vault.merging import MergeConflict
from storage.vault.paths import DIGESTS_DIR, NOT_THOUGHTS, PUT_AWAY, check_relpath, is_attachment
from storage.vault.remote_sync import SyncRound, SyncStatus, remote_of
from storage.vault.schema import (
    ADMIN,
    CLOSED_STATUSES,
    DEFAULT_CATEGORIES,
    IDEAS,
    INBOX,
    MANAGED_FIELDS,
    NAMED,
    PEOPLE,
    PROJECTS,
    SOURCE_PREFIX,
)
from storage.vault.sections import (
    SectionError,
    edited,
    find_section,
    headings,
    only_adds,
    prepended,
)
from storage.vault.vault import Vault

__all__ = [
    "ADMIN",
    "CLOSED_STATUSES",
    "DEFAULT_CATEGORIES",
    "DIGESTS_DIR",
    "IDEAS",
    "INBOX",
    "MANAGED_FIELDS",
    "NAMED",
    "NOT_THOUGHTS",
    "PEOPLE",
    "PROJECTS",
    "PUT_AWAY",
    "SOURCE_PREFIX",
    "BackupError",
    "BackupPusher",
    "DailyNotes",
    "MergeConflict",
    "SectionError",
    "SyncRound",
    "SyncStatus",
    "Vault",
    "VaultBackup",
    "check_relpath",
    "edited",
    "files_cut_short",
    "find_section",
    "git_at_work",
    "headings",
    "is_attachment",
    "lock_files",
    "moment_format",
    "only_adds",
    "prepended",
    "remote_of",
    "with_line",
]
