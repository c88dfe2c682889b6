"""Notes edited by hand, found at once: watch the vault folders, sync the vault that changed.

The periodic sync (BRAINBOT_SYNC_INTERVAL, 30 s) found a note saved in Obsidian or
brought by a `git pull` up to half a minute late. The watcher listens to the file
system's own change events (inotify, FSEvents, ReadDirectoryChangesW, through
watchfiles) and runs the same incremental sync on the vault the change is in.

A burst of events (an editor's save, a `git pull` of 500 files) is collected until
it has been quiet for QUIET_MS (at most MAX_WAIT_MS), then synced once per vault.
Events that come while a sync runs wait for the next one; none is lost. The sync
reads the git diff since the indexed commit, so its cost follows the change; after
one of brainbot's own writes (already indexed) it finds nothing to do.

Two folders are watched: the owner's vault (BRAINBOT_VAULT_DIR) and the folder of
every other vault (`<data dir>/vaults`), never the whole data folder, where the
embedded Postgres writes all the time. Only vaults open in this process are synced;
the others are synced when they open. Several processes on one data folder each
sync; the vault's write lock takes them in turn and the later ones find nothing new.

The periodic sync stays as the safety net, for what a watcher cannot see (a network
file system, the moment before the watch starts) and in case it cannot start at all
(too many inotify watches), which is then logged once.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from watchfiles import Change, awatch

from app.skips import SkipLedger
from storage import Store, Vaults
from storage.vault import git_at_work, is_attachment

log = logging.getLogger(__name__)
GIT_WAIT_SECONDS = 0.2  # how often a sync looks whether a git command in the vault is done
GIT_WAIT_STEPS = 300  # at most a minute; then it syncs anyway

QUIET_MS = 50  # a burst of events ends after this long without a new one
MAX_WAIT_MS = 400  # ...and a long burst is synced at least this often
_S = TypeVar("_S")


class NoteEvents:
    """Which file events may change the index: notes (`.md`) and folders (a folder
    renamed or removed takes its notes along), never anything hidden (`.git`,
    `.obsidian`, brainbot's own temp files) nor other files (images, PDFs)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = roots

    def __call__(self, change: Change, path: str) -> bool:
        rel = _relative(Path(path), self.roots)
        if rel is None or not rel.parts or any(p.startswith(".") for p in rel.parts):
            return False
        if rel.suffix == ".md":
            return True
        return change == Change.deleted or os.path.isdir(path)


def _relative(path: Path, roots: Sequence[Path]) -> Path | None:
    for root in roots:
        if path.is_relative_to(root):
            return path.relative_to(root)
    return None


def changes_by_vault(
    paths: Iterable[str], owner_root: Path, vaults_root: Path, open_stores: Mapping[Path, _S]
) -> list[tuple[_S, list[str]]]:
    """The open stores whose vault holds any of `paths`, in a stable order, each with
    its changed paths relative to the vault. A path under `vaults_root` is in the
    vault named by its first folder; paths in vaults not open here are left out."""
    found: dict[Path, tuple[_S, list[str]]] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_relative_to(owner_root):
            root = owner_root
        elif path.is_relative_to(vaults_root) and len(path.relative_to(vaults_root).parts) > 1:
            root = vaults_root / path.relative_to(vaults_root).parts[0]
        else:
            continue
        store = open_stores.get(root)
        if store is not None and path != root:
            found.setdefault(root, (store, []))[1].append(path.relative_to(root).as_posix())
    return [(found[root][0], sorted(found[root][1])) for root in sorted(found)]


@dataclass(frozen=True, slots=True)
class Look:
    """What the changed paths of one vault call for: a sync, and paths that are no
    file a note can be (a named pipe, a device), never read, reported as skipped."""

    sync: bool
    skipped: tuple[tuple[str, str], ...] = ()


async def look_at_changes(store: Store, paths: Sequence[str]) -> Look:
    """A sync is needed unless every changed note is already indexed as it is on disk,
    which is what brainbot's own writes leave behind. This look costs O(change) and
    reads each note only up to the size cap; a sync with nothing to do still scans
    the whole working tree twice (`git status`: 50 ms for 10,000 notes). What changed
    under `attachments/` calls for nothing: attachments are no notes."""
    paths = [path for path in paths if not is_attachment(path)]
    if not paths:
        return Look(False)
    on_disk, skipped = await store.hashes_on_disk(paths)
    if on_disk is None:
        return Look(True, skipped)
    indexed = await store.index.content_hashes(list(on_disk), embedded=True)
    return Look(any(indexed.get(path) != digest for path, digest in on_disk.items()), skipped)


async def watch_vaults(
    vaults: Vaults, stop: asyncio.Event, skips: SkipLedger, *, fallback: str
) -> None:
    """Sync each open vault as soon as its files change, until `stop` is set; what it
    leaves out goes to `skips`. If the watch cannot start or breaks, say so once
    (`fallback`: what finds edits instead) and return."""
    owner_root = vaults.settings.owner_dir.resolve()
    vaults_root = (vaults.settings.data_dir / "vaults").resolve()
    try:
        # Where person and team vaults will be made: watched before the first one is.
        vaults_root.mkdir(parents=True, exist_ok=True)
        roots = [owner_root, vaults_root]
        async for changes in awatch(
            *roots,
            watch_filter=NoteEvents(roots),
            debounce=MAX_WAIT_MS,
            step=QUIET_MS,
            stop_event=stop,
            ignore_permission_denied=True,
        ):
            open_stores = {store.vault.root.resolve(): store for store in vaults.opened()}
            changed = changes_by_vault(
                (p for _, p in changes), owner_root, vaults_root, open_stores
            )
            for store, paths in changed:
                look = await _look_or_unsure(store, paths)
                await skips.skipped("watch", store.vault_id, look.skipped)
                if look.sync:
                    await sync_store(store, "changed on disk", skips)
    except Exception as exc:
        log.warning("cannot watch the vaults for notes edited by hand (%s); %s", exc, fallback)


async def _look_or_unsure(store: Store, paths: Sequence[str]) -> Look:
    try:
        return await look_at_changes(store, paths)
    except Exception:
        log.debug("could not tell whether %s needs a sync", store.vault.root, exc_info=True)
        return Look(True)


async def sync_store(store: Store, why: str, skips: SkipLedger) -> None:
    """One incremental sync of `store`, logged, and what it skipped recorded in
    `skips`; a failure is logged and recorded too, and left for the next sync to
    retry (the vault and index are unchanged by a failed sync). While a git command
    works in the vault (a `git pull` writing files before it moves HEAD), the sync
    waits for it: files seen half-pulled would be committed as hand edits."""
    for _ in range(GIT_WAIT_STEPS):
        if not await asyncio.to_thread(git_at_work, store.vault.root):
            break
        await asyncio.sleep(GIT_WAIT_SECONDS)
    try:
        report = await store.sync()
    except Exception as exc:
        log.exception("syncing the index with %s failed; trying again later", store.vault.root)
        await skips.sync_failed(store.vault_id, exc)
        return
    await skips.synced(store.vault_id, report)
    if report.indexed or report.removed:
        log.info(
            "%s %s: %d indexed, %d removed",
            store.vault.root.name,
            why,
            report.indexed,
            report.removed,
        )
