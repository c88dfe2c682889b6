"""What `brainbot doctor` says of each vault's two-way sync with its git remote: the
last round's failure, a remote that was force-pushed, and conflict copies still
waiting for the person's choice (read from `.git/brainbot-sync.json`, no network)."""

from __future__ import annotations

from adapters.platform import Finding
from app.tool_checks import vault_folders
from bot.config import Settings
from storage.vault import SyncStatus

AREA = "sync"


def sync_findings(s: Settings) -> list[Finding]:
    """One finding per vault whose last sync round reported something."""
    found: list[Finding] = []
    for name, root in vault_folders(s):
        status = SyncStatus.read(root)
        if status is None:
            continue
        if status.error:
            found.append(
                Finding(
                    "problem",
                    AREA,
                    f"vault {name}: the last sync with its remote failed: {status.error}",
                    "check BRAINBOT_GIT_REMOTE, its credentials and that it accepts pushes; "
                    "the next round (BRAINBOT_GIT_PULL_INTERVAL, /sync) tries again",
                )
            )
        if status.forced:
            found.append(
                Finding(
                    "warning",
                    AREA,
                    f"vault {name}: its remote was force-pushed; the vault merged it and kept "
                    "what the rewrite dropped",
                )
            )
        waiting = [copy for _, copy in status.conflicts if (root / copy).is_file()]
        if waiting:
            copies = (
                "1 conflict copy waits"
                if len(waiting) == 1
                else f"{len(waiting)} conflict copies wait"
            )
            found.append(
                Finding(
                    "note",
                    AREA,
                    f"vault {name}: {copies} for a choice: {', '.join(waiting)}",
                    "press a button in the chat message about it, or delete the copy you do "
                    "not want",
                )
            )
    return found
