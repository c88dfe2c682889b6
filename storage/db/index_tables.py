"""The search index's tables. Everything here is derived from the vault and can be
rebuilt from it (`brainbot reindex`); all tables share `SQLModel.metadata`.

BM25 needs statistics Postgres' full-text search does not keep: how often each
term occurs in each note (`postings`, with the note's length beside it so ranking
never joins back to `entries`), in how many notes each term occurs (`terms`), and
the number and total length of notes (`index_meta`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Text,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlmodel import Field, SQLModel


def _entry_fk() -> Any:
    return Field(
        sa_column=Column(
            Integer, ForeignKey("entries.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )


class IndexedEntry(SQLModel, table=True):
    """One note as the index knows it: enough to list it without reading the file."""

    __tablename__ = "entries"
    __table_args__ = (
        Index("entries_tsv", "tsv", postgresql_using="gin"),
        Index("entries_tags", "tags", postgresql_using="gin"),
        Index("entries_category_updated", "category", "updated"),
        Index("entries_updated", "updated"),
        Index("entries_unembedded", "id", postgresql_where=text("NOT embedded")),
    )

    id: int | None = Field(default=None, primary_key=True)
    path: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    category: str = Field(sa_column=Column(Text, nullable=False))
    title: str = Field(sa_column=Column(Text, nullable=False))
    status: str | None = Field(default=None, sa_column=Column(Text))
    tags: list[str] = Field(
        default_factory=list,
        sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'")),
    )
    fields: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSONB, nullable=False))
    body: str = Field(sa_column=Column(Text, nullable=False))
    content_hash: str = Field(sa_column=Column(Text, nullable=False))
    frontmatter_error: str | None = Field(default=None, sa_column=Column(Text))
    updated: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    length: int = 0  # in terms, the BM25 document length
    embedded: bool = False  # False until its chunks have vectors (or when the embedder failed)
    tsv: Any = Field(default=None, sa_column=Column(TSVECTOR))


class Chunk(SQLModel, table=True):
    """One embedded passage of a note. The vector's length is set by the index when it
    opens (from the embedder), so the column is declared without one here."""

    __tablename__ = "chunks"

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    entry_id: int = _entry_fk()
    ord: int = 0
    start: int = 0  # offset of the passage in the body, for the hit's snippet
    embedding: Any = Field(default=None, sa_column=Column(VECTOR()))


class Posting(SQLModel, table=True):
    """How often `term` occurs in one note, and that note's length."""

    __tablename__ = "postings"
    __table_args__ = (Index("postings_entry", "entry_id"),)

    term: str = Field(sa_column=Column(Text, primary_key=True))
    entry_id: int = Field(
        sa_column=Column(Integer, ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True)
    )
    tf: int
    dl: int


class Term(SQLModel, table=True):
    """In how many notes a term occurs; the prefix index serves `proj` → `project`."""

    __tablename__ = "terms"
    __table_args__ = (Index("terms_prefix", "term", postgresql_ops={"term": "text_pattern_ops"}),)

    term: str = Field(sa_column=Column(Text, primary_key=True))
    df: int


class NoteLink(SQLModel, table=True):
    """A link from a note, its target kept as written (see storage.index.links)."""

    __tablename__ = "links"

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    source_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("entries.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    target_key: str = Field(sa_column=Column(Text, nullable=False, index=True))
    target_path: str | None = Field(default=None, sa_column=Column(Text))
    target_alt: str | None = Field(default=None, sa_column=Column(Text))
    context: str = Field(default="", sa_column=Column(Text, nullable=False))


class IndexMeta(SQLModel, table=True):
    """The single row describing the index as a whole."""

    __tablename__ = "index_meta"

    id: int = Field(default=1, primary_key=True)
    last_commit: str | None = None  # the vault commit the index reflects
    embedder: str | None = None  # name of the embedder the chunks were made with
    dimensions: int | None = None
    doc_count: int = 0
    total_length: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    # Paths a sync found changed; checked again next time, so an uncommitted edit
    # that is later reverted by hand does not stay in the index.
    recheck: list[str] = Field(
        default_factory=list,
        sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'")),
    )
