"""Everything a running brainbot needs, built once from Settings and closed in order."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.config import Settings
from bot.engine import Engine, utcnow
from bot.llm import LLM, LLMLimits
from storage.db.engine import Database
from storage.db.liveness import ProcessLiveness
from storage.db.migrations import migrate
from storage.db.records import Records
from storage.index.embeddings import make_embedder
from storage.store import Store

log = logging.getLogger(__name__)


async def open_store(settings: Settings, database: Database, *, reembed: bool = False) -> Store:
    """The vault and its index as the settings describe them, opened and brought up to date
    (`reembed`: the settings' embedder may replace vectors another one made)."""
    embedder = make_embedder(
        settings.embeddings,
        settings.embedding_model,
        settings.openai_api_key,
        settings.openai_base_url,
        settings.embedding_dimensions,
    )
    return await Store.open(
        vault_dir=settings.vault_dir,
        categories=settings.categories,
        database=database,
        embedder=embedder,
        max_bytes=settings.max_note_bytes,
        max_attachment_bytes=settings.max_attachment_bytes,
        reembed=reembed,
    )


@dataclass
class Runtime:
    settings: Settings
    database: Database
    store: Store
    records: Records
    llm: LLM | None
    engine: Engine
    liveness: ProcessLiveness

    @classmethod
    async def open(cls, settings: Settings, *, clock: Callable[[], datetime] = utcnow) -> Runtime:
        """Connect the database (embedded when no DATABASE_URL), bring its schema up to
        date (migrations), open the vault and index."""
        database = await Database.connect(settings.database_url, settings.data_dir)
        try:
            applied = await migrate(database.engine)
            if applied:
                log.info("database schema migrated: %s", "; ".join(m.name for m in applied))
            store = await open_store(settings, database)
            records = Records(database.engine)
            await records.create_schema()
            liveness = await ProcessLiveness.acquire(database.engine)
        except BaseException:
            await database.close()
            raise
        llm = (
            LLM(
                api_key=settings.openai_api_key,
                base_url=settings.openai_base_url,
                model=settings.llm_model,
                transcribe_model=settings.transcribe_model,
                limits=LLMLimits(
                    first_token_timeout=settings.llm_first_token_timeout,
                    total_timeout=settings.llm_timeout,
                    retries=settings.llm_retries,
                    max_tokens=settings.llm_max_tokens,
                    stream=settings.llm_stream,
                ),
            )
            if settings.llm_enabled
            else None
        )
        if llm is None:
            log.info("no OPENAI_API_KEY or OPENAI_BASE_URL: using the command router")
        engine = Engine(
            store=store,
            records=records,
            settings=settings,
            llm=llm,
            clock=clock,
            owner=liveness.token,
        )
        return cls(settings, database, store, records, llm, engine, liveness)

    async def close(self) -> None:
        if self.llm is not None:
            await self.llm.close()
        await self.store.close()
        await self.liveness.release()
        await self.database.close()
