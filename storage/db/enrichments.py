"""What a saved note still waits to have read into it: a link's page, the text in a
photo, a document's text.

A message is filed at once, exactly as sent; reading what it shares comes after the
reply (issue: rich capture), as a second commit on the same note. A crash between the
two commits must neither lose that second step nor do it twice, so each job is a row
here, written before the event is marked finished: a restart finds the rows still
waiting whose process is gone, and the vault's own history (the second commit names
`enrich:<id>`) says whether the work already landed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import BigInteger, Column, DateTime, Index, Integer, Text, select, text, update
from sqlalchemy.dialects.postgresql import JSONB, insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import Field, SQLModel

from storage.db.chat_tables import table_of
from storage.db.connection import autocommit


class EnrichmentRow(SQLModel, table=True):
    """One note's reading job: what to read (`items`), and whom to tell how it went."""

    __tablename__ = "enrichments"
    __table_args__ = (
        Index("enrichments_once", "vault_id", "event_key", "path", unique=True),
        Index("enrichments_waiting", "id", postgresql_where=text("status = 'waiting'")),
    )

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    vault_id: int = Field(sa_column=Column(Integer, nullable=False))
    path: str = Field(sa_column=Column(Text, nullable=False))  # the note, when it was filed
    note_id: str = Field(sa_column=Column(Text, nullable=False))  # its `id`: found after a move
    event_key: str = Field(sa_column=Column(Text, nullable=False))
    person_id: int = Field(sa_column=Column(Integer, nullable=False))
    # [{"kind": "link", "url": ...}, {"kind": "photo" | "document", "path", "name", "mime"}]
    items: list[dict[str, Any]] = Field(sa_column=Column(JSONB, nullable=False))
    platform: str = Field(sa_column=Column(Text, nullable=False))
    chat_id: str = Field(sa_column=Column(Text, nullable=False))
    thread_id: str | None = Field(default=None, sa_column=Column(Text))
    status: str = Field(sa_column=Column(Text, nullable=False))
    owner: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    attempts: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    detail: str = Field(default="", sa_column=Column(Text, nullable=False))


ENRICHMENTS = table_of(EnrichmentRow)


@dataclass(frozen=True, slots=True)
class Enrichment:
    # A job's `status`: waiting to be read, then one of the other three.
    WAITING: ClassVar[str] = "waiting"
    DONE: ClassVar[str] = "done"
    FAILED: ClassVar[str] = "failed"
    SKIPPED: ClassVar[str] = "skipped"

    id: int
    vault_id: int
    path: str
    note_id: str
    event_key: str
    person_id: int
    items: tuple[Mapping[str, Any], ...]
    platform: str
    chat_id: str
    thread_id: str | None
    status: str
    owner: int
    attempts: int
    created_at: datetime

    @property
    def commit_key(self) -> str:
        """The event name the second commit carries: the vault says whether it landed."""
        return f"enrich:{self.id}"


_COLUMNS = [ENRICHMENTS.c[name] for name in Enrichment.__slots__]


def _job(row: Sequence[Any]) -> Enrichment:
    values = dict(zip(Enrichment.__slots__, row, strict=True))
    values["items"] = tuple(values["items"])
    return Enrichment(**values)


class Enrichments:
    """The ledger of reading jobs; every method is one statement."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = autocommit(engine)

    async def add(
        self,
        *,
        vault_id: int,
        path: str,
        note_id: str,
        event_key: str,
        person_id: int,
        items: Sequence[Mapping[str, Any]],
        platform: str,
        chat_id: str,
        thread_id: str | None,
        owner: int,
        at: datetime,
    ) -> Enrichment:
        """Keep a job (the same event's job for the same note is kept once: an event
        handled again after a restart finds the first one)."""
        row = {
            "vault_id": vault_id,
            "path": path,
            "note_id": note_id,
            "event_key": event_key,
            "person_id": person_id,
            "items": list(items),
            "platform": platform,
            "chat_id": chat_id,
            "thread_id": thread_id,
            "status": Enrichment.WAITING,
            "owner": owner,
            "attempts": 0,
            "created_at": at,
            "detail": "",
        }
        insert_row = insert(ENRICHMENTS).values(row)
        stmt = insert_row.on_conflict_do_update(
            index_elements=["vault_id", "event_key", "path"],
            set_={"owner": insert_row.excluded.owner},
            where=ENRICHMENTS.c.status == Enrichment.WAITING,
        ).returning(*_COLUMNS)
        async with self.engine.connect() as conn:
            found = (await conn.execute(stmt)).first()
            if found is None:  # already finished: the earlier job stands
                c = ENRICHMENTS.c
                found = (
                    await conn.execute(
                        select(*_COLUMNS).where(
                            c.vault_id == vault_id, c.event_key == event_key, c.path == path
                        )
                    )
                ).one()
        return _job(found)

    async def claim(self, job_id: int, owner: int) -> Enrichment | None:
        """Take a waiting job for this process (None: done or taken meanwhile)."""
        c = ENRICHMENTS.c
        stmt = (
            update(ENRICHMENTS)
            .where(c.id == job_id, c.status == Enrichment.WAITING)
            .values(owner=owner, attempts=c.attempts + 1)
            .returning(*_COLUMNS)
        )
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return None if row is None else _job(row)

    async def waiting(self, limit: int = 500) -> list[Enrichment]:
        """Jobs not finished, oldest first (a restart looks at them)."""
        c = ENRICHMENTS.c
        stmt = select(*_COLUMNS).where(c.status == Enrichment.WAITING).order_by(c.id).limit(limit)
        async with self.engine.connect() as conn:
            return [_job(row) for row in (await conn.execute(stmt)).all()]

    async def finish(self, job_id: int, status: str, at: datetime, detail: str = "") -> None:
        c = ENRICHMENTS.c
        stmt = (
            update(ENRICHMENTS)
            .where(c.id == job_id)
            .values(status=status, finished_at=at, detail=detail[:500])
        )
        async with self.engine.connect() as conn:
            await conn.execute(stmt)

    async def get(self, job_id: int) -> Enrichment | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(*_COLUMNS).where(ENRICHMENTS.c.id == job_id))).first()
        return None if row is None else _job(row)

    async def last_read(
        self, vault_id: int, note_id: str, path: str, item: Mapping[str, Any] | None = None
    ) -> tuple[str, str] | None:
        """(status, what the person was told) of the newest job of a note (its `id`, or
        the path it was filed at), only among those that read `item` when given (a
        link: `{"kind": "link", "url": ...}`); None when none was kept."""
        c = ENRICHMENTS.c
        stmt = select(c.status, c.detail).where(
            c.vault_id == vault_id, (c.note_id == note_id) if note_id else (c.path == path)
        )
        if item is not None:
            stmt = stmt.where(c["items"].contains([dict(item)]))
        async with self.engine.connect() as conn:
            row = (await conn.execute(stmt.order_by(c.id.desc()).limit(1))).first()
        return None if row is None else (str(row[0]), str(row[1]))
