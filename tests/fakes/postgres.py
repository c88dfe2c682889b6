"""An embedded Postgres with pgvector for tests and benchmarks (the server brainbot
ships, storage.db.embedded_pg), with room for many connections (several brainbot
processes, each with its pools)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def start_postgres(root: Path, *, durable: bool = True) -> tuple[Any, str]:
    """Start Postgres under `root` with `vector` in every new database; (server, admin URI).
    Not `durable`: it does not wait for the disk (a test run throws it away; a bench
    measures what users get, so it keeps the default). Stop it with `server.cleanup()`."""
    import psycopg

    from storage.db.embedded_pg import start_server

    server = start_server(root)
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET max_connections = 300")
        if not durable:  # a dropped test database then costs 0.05 s, not 0.2 s
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
    # These settings only change on restart.
    server.cleanup()
    server = start_server(root)
    uri = server.get_uri()
    with psycopg.connect(uri.replace("/postgres?", "/template1?"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return server, uri
