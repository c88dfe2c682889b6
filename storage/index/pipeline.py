"""Statements on the psycopg connection under a SQLAlchemy transaction: several in one
round trip (psycopg's pipeline mode), and binary COPY.

A note's index write is a dozen statements; sent one by one, each waits for the
server's answer before the next leaves. In pipeline mode they all leave at once, run
in order in the caller's transaction (each still sees what the ones before it did),
and their answers come back together: what one statement needs of another's answer
(an id) has to wait for the next pipeline. An error in any of them aborts the
transaction as it would have one by one, and is raised when the pipeline ends, as
psycopg's own error (storage.index.storable.refusal reads both kinds).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import TextClause
from sqlalchemy.ext.asyncio import AsyncConnection

Params = Mapping[str, Any]

_compiled: dict[TextClause, str] = {}


def _driver_sql(conn: AsyncConnection, statement: TextClause) -> str:
    """`statement` as psycopg takes it (`:name` becomes `%(name)s`), compiled once."""
    sql = _compiled.get(statement)
    if sql is None:
        sql = _compiled[statement] = str(statement.compile(dialect=conn.dialect))
    return sql


@dataclass(frozen=True)
class Step:
    """One statement of a pipeline with its `params`, or run once per parameter set
    when `many` holds them (not at all for none)."""

    statement: TextClause
    params: Params | None = None
    many: Sequence[Params] | None = None


@dataclass(frozen=True)
class Answer:
    """What a step's statement gave back: its rows, and how many rows it changed."""

    rows: list[tuple[Any, ...]]
    rowcount: int


async def _driver(conn: AsyncConnection) -> Any:
    raw = await conn.get_raw_connection()
    return raw.driver_connection


async def run(conn: AsyncConnection, steps: Sequence[Step]) -> list[Answer]:
    """Run `steps` in order in `conn`'s transaction, in one round trip; their answers."""
    driver = await _driver(conn)
    cursors = []
    async with driver.pipeline():
        for step in steps:
            cursor = driver.cursor()
            cursors.append(cursor)
            if step.many is not None:
                if step.many:
                    await cursor.executemany(_driver_sql(conn, step.statement), step.many)
            else:
                await cursor.execute(_driver_sql(conn, step.statement), step.params)
    answers = []
    for cursor in cursors:
        rows = await cursor.fetchall() if cursor.description is not None else []
        answers.append(Answer(rows, cursor.rowcount))
        await cursor.close()
    return answers


def vector_bytes(vector: Sequence[float]) -> bytes:
    """pgvector's binary form: dimension, a reserved zero, then big-endian float4s."""
    # struct, not numpy: numpy dies at import on x86-64 CPUs below its baseline, which
    # run brainbot with a Postgres of their own and an embeddings endpoint.
    return struct.pack(f">HH{len(vector)}f", len(vector), 0, *vector)


def vector_floats(data: bytes) -> list[float]:
    """A vector from pgvector's binary form (`vector_bytes`)."""
    (dimensions,) = struct.unpack_from(">H", data)
    return list(struct.unpack_from(f">{dimensions}f", data, 4))


async def copy_rows(
    conn: AsyncConnection, statement: str, types: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Binary COPY of `rows` on the transaction's own connection."""
    driver = await _driver(conn)
    async with driver.cursor() as cursor, cursor.copy(statement) as copy:
        copy.set_types(list(types))
        for row in rows:
            await copy.write_row(row)
