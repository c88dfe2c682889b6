"""`brainbot db upgrade [--old-postgres DIR]`: move the embedded Postgres' data to the
installed server's major version (storage.db.pg_upgrade). `brainbot run` does it by
itself for a folder of PostgreSQL 16, whose programs are shipped; the command runs it
by hand, or for another version with its programs in DIR."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from app.settings_check import load_settings
from storage import StorageError
from storage.db import upgrade


def main_upgrade(args: argparse.Namespace) -> int:
    """`brainbot db upgrade`."""
    return run_upgrade(args, sys.stdout)


def run_upgrade(args: argparse.Namespace, out: TextIO) -> int:
    """Upgrade the folder the settings name; print what was done, or why not (exit 1)."""
    settings = load_settings()
    if settings.database_url:
        print(
            "brainbot db upgrade: DATABASE_URL is set, so brainbot uses that server, not the "
            "embedded one; upgrade it with its own tools (pg_upgrade, or pg_dump and restore)",
            file=sys.stderr,
        )
        return 1
    pgdata = settings.data_dir / "pg"
    try:
        done = upgrade(pgdata, args.old_postgres)
    except StorageError as exc:
        print(f"brainbot db upgrade: {exc} (the data folder was not changed)", file=sys.stderr)
        return 1
    out.write(
        f"{pgdata}: PostgreSQL {done.old_major} -> {done.new_major}, "
        f"{sum(done.rows.values())} rows in {len(done.rows)} tables, every count the same.\n"
        f"The old folder is kept as {done.kept_folder} and the dump as {done.dump}: "
        "delete them once brainbot runs well.\n"
    )
    return 0
