"""Helpers for the index, search, store and sync tests: a connected database, an
opened index or store, and notes made up in memory."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from storage.db.connection import Database
from storage.entry import Entry
from storage.index.embeddings import Embedder, HashingEmbedder
from storage.index.index import Index
from storage.store import Store
from tests.storage.vault.vault_support import CATEGORIES, LIMITS


@asynccontextmanager
async def connected(database_url: str) -> AsyncIterator[Database]:
    database = await Database.connect(database_url, Path("unused"))
    try:
        yield database
    finally:
        await database.close()


@asynccontextmanager
async def opened_index(database_url: str, embedder: Embedder | None = None) -> AsyncIterator[Index]:
    async with connected(database_url) as database:
        yield await Index.open(database, embedder)


@asynccontextmanager
async def opened_store(
    vault_dir: Path,
    database_url: str,
    embedder: Embedder | None = None,
    *,
    keyword_only: bool = False,
    reembed: bool = False,
) -> AsyncIterator[Store]:
    """A Store on a vault at `vault_dir`; hashing embeddings unless told otherwise."""
    async with connected(database_url) as database:
        store = await Store.open(
            vault_dir=vault_dir,
            categories=CATEGORIES,
            database=database,
            embedder=None if keyword_only else embedder or HashingEmbedder(64),
            reembed=reembed,
            **LIMITS,
        )
        try:
            yield store
        finally:
            await store.close()


def note(path: str, body: str, title: str | None = None, **fields: Any) -> Entry:
    """An Entry as the vault would hand it out, without a vault."""
    category = path.split("/", 1)[0] if "/" in path else ""
    title = title or path.rsplit("/", 1)[-1].removesuffix(".md")
    digest = hashlib.sha256(f"{path}\n{title}\n{body}\n{fields}".encode()).hexdigest()
    return Entry(path, category, title, fields, body, digest)
