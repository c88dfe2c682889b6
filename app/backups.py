"""Every vault and its own git remote: `BRAINBOT_GIT_REMOTE` may name the vault with
`{person}` (e.g. `git@git.example.org:brains/{person}.git`); without it only the
owner's vault (BRAINBOT_VAULT_DIR) has one.

Each vault with a remote is pushed after changes (storage.vault.backup) and synced
both ways (storage.vault.remote_sync): every BRAINBOT_GIT_PULL_INTERVAL seconds,
when the person sends /sync, and when the git server's push webhook calls
`POST /api/v1/sync`. A conflict the sync kept as a copy is told to the person in
their chat, with a button for each version (bot.buttons.sync_conflicts)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from bot import metrics
from bot.buttons import conflict_message
from bot.events import Deliver, NoRoute
from scheduler.delivery import home_conversations
from storage import OWNER_VAULT, Store, VaultInfo, Vaults
from storage.db import Records
from storage.vault import (
    BackupError,
    BackupPusher,
    SyncRound,
    SyncStatus,
    VaultBackup,
    remote_of,
)

log = logging.getLogger(__name__)

# At most this many vaults talk to their remotes at once (a round waits mostly on git).
PARALLEL_ROUNDS = 4

Notify = Callable[[VaultInfo, SyncRound], Awaitable[None]]


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
    """One pusher per vault with a remote, started as each vault's store opens, and
    the rounds of two-way sync (see the module doc)."""

    def __init__(self, template: str, *, notify: Notify | None = None) -> None:
        self.template = template
        self.notify = notify
        self.pushers: dict[int, BackupPusher] = {}
        self.synced: dict[int, tuple[VaultInfo, Store, str]] = {}

    def remote(self, vault: VaultInfo) -> str | None:
        """The vault's remote (None: it has none)."""
        return remote_of(self.template, vault.name, owner=vault.id == OWNER_VAULT)

    async def opened(self, vault: VaultInfo, store: Store) -> None:
        """`Vaults.on_open` listener: a round of sync (a new vault takes the remote's
        notes; both sides' changes are merged), then push after changes."""
        remote = self.remote(vault)
        if vault.id in self.pushers or remote is None:
            return
        self.synced[vault.id] = (vault, store, remote)
        await self.round(vault, store, remote)

        async def merge_and_push() -> bool:
            done = await self.round(vault, store, remote)
            return done is not None and done.outcome != "failed"

        pusher = BackupPusher(
            VaultBackup(store.vault.root, remote),
            on_push=metrics.backup_pushed,
            moved_on=merge_and_push,
        )
        self.pushers[vault.id] = pusher
        await pusher.start()

    async def sync(self, vault_id: int | None = None) -> dict[int, SyncRound]:
        """One round for the vault `vault_id` (None: every open vault with a remote);
        one vault's failure never stops another's."""
        chosen = [v for k, v in self.synced.items() if vault_id is None or k == vault_id]
        limit = asyncio.Semaphore(PARALLEL_ROUNDS)

        async def one(vault: VaultInfo, store: Store, remote: str) -> tuple[int, SyncRound] | None:
            async with limit:
                done = await self.round(vault, store, remote)
            return None if done is None else (vault.id, done)

        rounds = await asyncio.gather(*(one(*chosen_one) for chosen_one in chosen))
        return dict(r for r in rounds if r is not None)

    async def round(self, vault: VaultInfo, store: Store, remote: str) -> SyncRound | None:
        """One round for one vault; its conflicts are told (`notify`). None when it
        failed on our side (logged): the remote's failures are in the round."""
        try:
            done = await store.sync_remote(remote)
        except Exception:
            log.exception("the sync of vault %s failed", vault.name)
            return None
        if done.conflicts and self.notify is not None:
            try:
                await self.notify(vault, done)
            except Exception:
                log.exception("telling vault %s's person of a conflict failed", vault.name)
        return done

    async def problems(self) -> str | None:
        """What the last round of each vault reported, if anything (for /readyz)."""
        return await asyncio.to_thread(self._problems)

    def _problems(self) -> str | None:
        found = []
        for vault, store, _ in self.synced.values():
            status = SyncStatus.read(store.vault.root)
            if status is not None and (status.error or status.forced):
                found.append(f"{vault.name}: {status.error or 'the remote was force-pushed'}")
        return "; ".join(found) or None

    async def pull_every(self, interval: float) -> None:
        """Sync every vault with a remote every `interval` seconds (a task of `serve`)."""
        while True:
            await asyncio.sleep(interval)
            await self.sync()

    async def stop(self, push_within: float) -> None:
        pushers, self.pushers = list(self.pushers.values()), {}
        await asyncio.gather(*(p.stop(push_within=push_within) for p in pushers))


def conflict_notifier(vaults: Vaults, records: Records, deliver: Deliver) -> Notify:
    """Tell the vault's person (a team vault: its first member) of each conflict a
    round kept as a copy, in their home chat, with a button for each version."""

    async def notify(vault: VaultInfo, done: SyncRound) -> None:
        person = vault.user_id if vault.user_id is not None else await vaults.first_member(vault.id)
        homes = [] if person is None else await home_conversations(records, person)
        if person is None or not homes:
            log.warning("vault %s has sync conflicts and nobody to tell", vault.name)
            return
        now = datetime.now(UTC)
        for conflict in done.conflicts:
            reply = await conflict_message(
                records, person, vault.id, conflict.path, conflict.copy, conflict.device, now
            )
            # The first home chat whose platform runs in this process hears of it.
            for home in homes:
                try:
                    await deliver(home, reply)
                    break
                except NoRoute:
                    continue
            else:
                log.warning("vault %s has a sync conflict and no chat to tell", vault.name)

    return notify
