"""`brainbot import PATH`, `brainbot reindex`, `brainbot search QUERY` and
`brainbot vaults`. Each works on one vault (`--vault NAME`, by default the owner's,
BRAINBOT_VAULT_DIR); `reindex` without `--vault` rebuilds every vault's index."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from app.brain_data import announce_new, brain_settings
from app.settings_check import load_settings
from app.skips import SkipLedger
from app.vaults_from_settings import make_vaults
from bot.config import Settings
from storage import OWNER_VAULT, ImportResult, SearchResults, StorageError, Store, Vaults, migrate
from storage.db import Database, Records


def import_command(args: argparse.Namespace) -> int:
    """`brainbot import PATH`."""
    if not args.path.is_dir():
        print(f"brainbot: {args.path} is not a folder", file=sys.stderr)
        return 2
    return _main(_import(args.path, args.vault))


def reindex_command(args: argparse.Namespace) -> int:
    """`brainbot reindex`."""
    return _main(_reindex(args.embed, args.vault))


def search_command(args: argparse.Namespace) -> int:
    """`brainbot search QUERY`."""
    return _main(_search(args))


def vaults_command(args: argparse.Namespace) -> int:
    """`brainbot vaults`."""
    return _main(_list_vaults())


def _main(work: Any) -> int:
    try:
        code: int = asyncio.run(work)
    except (StorageError, LookupError) as exc:
        print(f"brainbot: {exc}", file=sys.stderr)
        return 1
    return code


@asynccontextmanager
async def opened_vaults(settings: Settings, *, reembed: bool = False) -> AsyncIterator[Vaults]:
    """Every vault the settings describe (each store opens when asked for), closed again."""
    database = await Database.connect(settings.database_url, settings.data_dir)
    try:
        await migrate(database.engine)
        # A command answers and ends: embedding every note is `brainbot run`'s work.
        vaults = make_vaults(settings, database, reembed=reembed, embed_in_background=False)
        try:
            yield vaults
        finally:
            await vaults.close()
    finally:
        await database.close()


@asynccontextmanager
async def opened_store(
    settings: Settings, *, reembed: bool = False, vault: str | None = None
) -> AsyncIterator[Store]:
    """The Store of the vault called `vault` (the owner's when None), opened and synced."""
    async with opened_vaults(settings, reembed=reembed) as vaults:
        yield await vaults.store(await _vault_id(vaults, vault))


async def _vault_id(vaults: Vaults, name: str | None) -> int:
    if name is None:
        return OWNER_VAULT
    found = await vaults.named(name)
    if found is None:
        known = ", ".join(v.name for v in await vaults.all())
        raise LookupError(f"there is no vault {name!r}; the vaults are: {known}")
    return found.id


class ProgressBar:
    """A one-line bar on a terminal; on anything else one line per finished phase."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.drawn = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self.live:
            filled = self.WIDTH * done // total if total else self.WIDTH
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self.stream.write(f"\r{phase:>8} [{bar}] {done}/{total}")
            self.drawn = True
            if done >= total:
                self.stream.write("\n")
                self.drawn = False
        elif done >= total:
            self.stream.write(f"{phase}: {done}/{total}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


async def _import(path: Path, vault: str | None) -> int:
    bar = ProgressBar(sys.stderr)
    settings = load_settings()
    announce_new(settings)
    try:
        async with opened_vaults(settings) as vaults:
            vault_id = await _vault_id(vaults, vault)
            store = await vaults.store(vault_id)
            result = await store.import_folder(path, progress=bar)
            # Kept for `brainbot doctor`, as the sync's skips are.
            await SkipLedger(vaults.database.engine).skipped("import", vault_id, result.skipped)
    finally:
        bar.close()
    print(_import_summary(result))
    return 0


def _import_summary(result: ImportResult) -> str:
    """What was imported, then, when anything was left out, how much up front and each
    skipped file with why: a user must learn that part of the folder did not come."""
    lines = [f"Imported {len(result.imported)} notes, copied {len(result.copied)} other files."]
    if result.skipped:
        lines[0] += f" Skipped {len(result.skipped)} (listed below; nothing else changed)."
    if result.warnings:
        lines.append(f"{len(result.warnings)} imported with problems:")
        lines += [f"  {path}: {reason}" for path, reason in result.warnings]
    if result.skipped:
        lines.append(f"{len(result.skipped)} skipped:")
        lines += [f"  {path}: {reason}" for path, reason in result.skipped]
    return "\n".join(lines)


async def _reindex(embed: bool, vault: str | None) -> int:
    bar = ProgressBar(sys.stderr)
    count = 0
    skipped: list[tuple[str, str]] = []
    try:
        async with opened_vaults(brain_settings(), reembed=embed) as vaults:
            ids = [await _vault_id(vaults, vault)] if vault else [v.id for v in await vaults.all()]
            skips = SkipLedger(vaults.database.engine)
            for vault_id in ids:
                store = await vaults.store(vault_id)
                report = await store.reindex(progress=lambda done, total: bar("index", done, total))
                await skips.synced(vault_id, report, first=True)
                count += report.indexed
                skipped += [(path or "(the vault)", why) for path, why in report.skipped]
                skipped += report.refused
    finally:
        bar.close()
    print(f"Indexed {count} notes.")
    if skipped:
        print(f"Skipped {len(skipped)}:")
        for path, why in skipped:
            print(f"  {path}: {why}")
    return 0


async def _list_vaults() -> int:
    async with opened_vaults(brain_settings()) as vaults:
        people = {p.id: p.name for p in await Records(vaults.database.engine).people.all()}
        counts = await vaults.note_counts()
        for vault in await vaults.all():
            whose = (
                "team"
                if vault.is_team
                else people.get(vault.user_id or 0, "the owner, once someone writes")
            )
            notes = counts.get(vault.id, 0)
            print(f"{vault.name}\t{whose}\t{notes} notes\t{vaults.root(vault)}")
    return 0


def results_json(query: str, results: SearchResults) -> dict[str, Any]:
    """One search's results as plain JSON data."""
    return {
        "query": query,
        "mode": results.mode,
        "notes": list(results.notes),
        "empty": results.empty,
        "hits": [
            {
                "path": hit.path,
                "title": hit.title,
                "category": hit.category,
                "snippet": hit.snippet,
                "score": round(hit.score, 6),
                "updated": hit.updated.isoformat() if hit.updated else None,
                "matched": hit.matched or None,
                "passage": hit.passage or None,
            }
            for hit in results.hits
        ],
    }


def _print_text(results: SearchResults) -> None:
    from bot.tools import why  # the tools' door brings the model's client: not for JSON

    for note in results.notes:
        print(f"({note})", file=sys.stderr)
    if not results.hits:
        print(results.empty or "No matching notes.")
    for number, hit in enumerate(results.hits, start=1):
        found = f"  {why(hit.matched)}" if hit.matched else ""
        print(f"{number}. {hit.title}  [{hit.path}]  {hit.score:.4f}{found}")
        print(f"   {hit.passage or hit.snippet}")


async def _search(args: argparse.Namespace) -> int:
    async with opened_store(brain_settings(), vault=args.vault) as store:

        async def run(query: str) -> SearchResults:
            return await store.search(query, category=args.category, limit=max(1, args.limit))

        if args.query == "-":
            # One JSON line per query, for scripts.
            for line in sys.stdin:
                query = line.strip()
                if query:
                    print(json.dumps(results_json(query, await run(query)), ensure_ascii=False))
                    sys.stdout.flush()
            return 0
        results = await run(args.query)
        if args.json:
            print(json.dumps(results_json(args.query, results), ensure_ascii=False, indent=2))
        else:
            _print_text(results)
    return 0
