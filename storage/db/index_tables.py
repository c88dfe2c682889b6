"""The search index's tables. Everything here is derived from the vault and can be
rebuilt from it (`brainbot reindex`); all tables share `SQLModel.metadata`.

BM25 needs statistics Postgres' full-text search does not keep: how often each
term occurs in each note (`postings`, with the note's length beside it so ranking
never joins back to `entries`), in how many notes each term occurs (`terms`), and
the number and total length of notes (`index_meta`).

One database holds the index of many vaults (a person's, a team's): every row
carries its `vault_id`, every query names one, and BM25 statistics are per vault.
The ids come from outside the index (it keeps no table of vaults).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlmodel import Field, SQLModel


def _vault() -> Any:
    return Field(sa_column=Column(Integer, nullable=False))


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
        UniqueConstraint("vault_id", "path", name="entries_vault_path"),
        Index("entries_tsv", "tsv", postgresql_using="gin"),
        Index("entries_tags", "tags", postgresql_using="gin"),
        Index("entries_vault_category_updated", "vault_id", "category", "updated"),
        Index("entries_vault_updated", "vault_id", "updated"),
        Index("entries_vault_unembedded", "vault_id", "id", postgresql_where=text("NOT embedded")),
        # The few notes with a reminder, which the scheduler reads every poll.
        Index(
            "entries_reminders",
            "vault_id",
            postgresql_where=text("fields ? 'remind' OR fields ? 'snooze'"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    vault_id: int = _vault()
    path: str = Field(sa_column=Column(Text, nullable=False))
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
    # When the note was filed (its `created` field); None for a note without one, and
    # for notes indexed before the column existed until they are indexed again.
    created: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    # Its `due` day as storage.text.dates.frontmatter_day reads it (None: no due day), read
    # once when the note is indexed: queries compare this, never the field's text.
    due: date | None = Field(default=None, sa_column=Column(Date))
    length: int = 0  # in terms, the BM25 document length
    embedded: bool = False  # False until its chunks have vectors (or when the embedder failed)
    tsv: Any = Field(default=None, sa_column=Column(TSVECTOR))


class Chunk(SQLModel, table=True):
    """One embedded passage of a note. Its vector, the `embedding` column (pgvector's
    `vector`), is not declared here: the database has it only where the server can
    run pgvector (storage.db.vector_side adds it), and its length follows the embedder
    (storage.index.vector_setup). The HNSW index over it serves every vault; a small
    vault's chunks are scanned exactly instead (through `chunks_vault`, see
    storage.index.search)."""

    __tablename__ = "chunks"
    __table_args__ = (Index("chunks_vault", "vault_id"),)

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    vault_id: int = _vault()
    entry_id: int = _entry_fk()
    ord: int = 0
    start: int = 0  # offset of the passage in the body, for the hit's snippet


class Posting(SQLModel, table=True):
    """How often `term` occurs in one note, and that note's length. The key leads with
    the vault, so ranking reads one vault's postings of a term as one index range."""

    __tablename__ = "postings"
    __table_args__ = (Index("postings_entry", "entry_id"),)

    vault_id: int = Field(sa_column=Column(Integer, primary_key=True))
    term: str = Field(sa_column=Column(Text, primary_key=True))
    entry_id: int = Field(
        sa_column=Column(Integer, ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True)
    )
    tf: int
    dl: int


class Term(SQLModel, table=True):
    """In how many notes of a vault a term occurs; the prefix index serves
    `proj` → `project` within the vault."""

    __tablename__ = "terms"
    __table_args__ = (
        Index(
            "terms_vault_prefix", "vault_id", "term", postgresql_ops={"term": "text_pattern_ops"}
        ),
    )

    vault_id: int = Field(sa_column=Column(Integer, primary_key=True))
    term: str = Field(sa_column=Column(Text, primary_key=True))
    df: int


class NoteLink(SQLModel, table=True):
    """A link from a note, its target kept as written (see storage.index.note_links)."""

    __tablename__ = "links"
    __table_args__ = (Index("links_vault_target", "vault_id", "target_key"),)

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    vault_id: int = _vault()
    source_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("entries.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    target_key: str = Field(sa_column=Column(Text, nullable=False))
    target_path: str | None = Field(default=None, sa_column=Column(Text))
    target_alt: str | None = Field(default=None, sa_column=Column(Text))
    context: str = Field(default="", sa_column=Column(Text, nullable=False))
    # The link's type as written (`- works_at [[Acme]]`, `employer:: [[Acme]]`); None
    # for a plain link.
    relation: str | None = Field(default=None, sa_column=Column(Text))


class NoteName(SQLModel, table=True):
    """A name a note may be mentioned by (its title, an alias), keyed by its rarest
    word when it was indexed: the weekly review looks up only the names whose key a
    recent note uses (storage.index.mention_search), and a name is only mentioned where all
    its words are, so any of them would do; the rarest keeps the lookup small."""

    __tablename__ = "note_names"
    __table_args__ = (Index("note_names_vault_key", "vault_id", "key_term"),)

    id: int | None = Field(default=None, sa_column=Column(BigInteger, primary_key=True))
    vault_id: int = _vault()
    entry_id: int = _entry_fk()
    name: str = Field(sa_column=Column(Text, nullable=False))
    key_term: str = Field(sa_column=Column(Text, nullable=False))
    terms: list[str] = Field(
        default_factory=list, sa_column=Column(ARRAY(Text), nullable=False)
    )  # the name's words as the index reads them (storage.index.tokens)


class IndexMeta(SQLModel, table=True):
    """One row per vault: its BM25 statistics and the vault commit its index reflects.

    `embedder` and `dimensions` describe the chunk vectors, which all vaults share
    (one column, one HNSW index): every row holds the same values, changed together."""

    __tablename__ = "index_meta"

    vault_id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    last_commit: str | None = None  # the vault commit the index reflects
    embedder: str | None = None  # name of the embedder the chunks were made with
    dimensions: int | None = None
    doc_count: int = 0
    total_length: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    # Grows each time a people or projects note's row is written or dropped: what a
    # capture may name changed (storage.index.lookups.names_mark).
    name_changes: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, server_default=text("0"))
    )
    # Paths a sync found changed; checked again next time, so an uncommitted edit
    # that is later reverted by hand does not stay in the index.
    recheck: list[str] = Field(
        default_factory=list,
        sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'")),
    )
