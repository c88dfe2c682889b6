"""An embedded Postgres 16 with pgvector for tests and benchmarks (pgserver), with
room for many connections (several brainbot processes, each with its pools)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def start_postgres(root: Path) -> tuple[Any, str]:
    """Start Postgres under `root` with `vector` in every new database; (server, admin URI).
    Stop it with `server.cleanup()`."""
    import pgserver
    import psycopg

    server = pgserver.get_server(root, cleanup_mode="stop")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET max_connections = 300")
    # max_connections only changes on restart.
    server.cleanup()
    server = pgserver.get_server(root, cleanup_mode="stop")
    uri = server.get_uri()
    with psycopg.connect(uri.replace("/postgres?", "/template1?"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return server, uri
