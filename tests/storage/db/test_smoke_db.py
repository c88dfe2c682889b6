import psycopg


def test_fresh_database_has_pgvector(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
    assert row is not None and row[0] >= "0.6"
