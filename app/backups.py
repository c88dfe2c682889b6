"""Backing up every vault to its own remote: `BRAINBOT_GIT_REMOTE` may name the vault
with `{person}` (e.g. `git@git.example.org:brains/{person}.git`); without it only
the owner's vault (BRAINBOT_VAULT_DIR) is pushed, as before private vaults."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from bot import metrics
from storage import OWNER_VAULT, Store, VaultInfo
from storage.vault import BackupError, BackupPusher, VaultBackup

log = logging.getLogger(__name__)

PLACEHOLDERS = ("{person}", "{vault}")


def remote_for(template: str, vault_name: str) -> str:
    """The vault's remote: the template with `{person}` (or `{vault}`) filled in."""
    for placeholder in PLACEHOLDERS:
        template = template.replace(placeholder, vault_name)
    return template


def per_vault(template: str) -> bool:
    return any(p in template for p in PLACEHOLDERS)


def restore(root: Path, remote: str) -> None:
    """Bring the vault up to its remote before it is used (blocking)."""
    backup = VaultBackup(root, remote)
    try:
        result = backup.restore()
    except BackupError as exc:
        # Start from what the vault has: a capture matters more than the backup.
        log.error("could not update the vault from %s: %s", backup.shown, exc)
        return
    log.info("vault backup at %s: %s", backup.shown, result.outcome)


class Backups:
    """One pusher per backed-up vault, started as each vault's store opens."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.pushers: dict[int, BackupPusher] = {}

    async def opened(self, vault: VaultInfo, store: Store) -> None:
        """`Vaults.on_open` listener: pull what the remote has, then push after changes."""
        if vault.id in self.pushers or not (per_vault(self.template) or vault.id == OWNER_VAULT):
            return
        remote = remote_for(self.template, vault.name)
        if vault.id != OWNER_VAULT:  # the owner's vault was restored before the start
            await asyncio.to_thread(restore, store.vault.root, remote)
            await store.sync()
        pusher = BackupPusher(VaultBackup(store.vault.root, remote), on_push=metrics.backup_pushed)
        self.pushers[vault.id] = pusher
        await pusher.start()

    async def stop(self, push_within: float) -> None:
        pushers, self.pushers = list(self.pushers.values()), {}
        await asyncio.gather(*(p.stop(push_within=push_within) for p in pushers))
