"""Every vault as the settings describe them, for `brainbot run` (app.runtime) and the
commands that read notes without the engine (`search`, `import`, `reindex`, `vaults`),
which so start without loading the model's client and the tools."""

from __future__ import annotations

import logging

from app.skips import SkipLedger
from bot.config import Settings
from storage import Vaults, VaultSettings
from storage.db import SEMANTIC_SEARCH_FIX, Database, semantic_search_off
from storage.index import make_embedder

log = logging.getLogger(__name__)


def make_vaults(
    settings: Settings,
    database: Database,
    *,
    reembed: bool = False,
    skips: SkipLedger | None = None,
    embed_in_background: bool = True,
) -> Vaults:
    """Every vault as the settings describe them (`reembed`: the settings' embedder may
    replace vectors another one made; `embed_in_background`: notes waiting for vectors
    are embedded meanwhile, else left for `brainbot run`); each store opens when first
    used, and what its first sync skipped, and what any index write leaves out, goes
    to `skips` (a ledger of its own when None). A database without a vector side
    (the embedded one on a CPU its pgvector cannot run on) gets no embedder, with a
    warning: the captures go on, found by keyword."""
    embedder = None
    if database.vectors:
        embedder = make_embedder(
            settings.embeddings,
            settings.embedding_model,
            settings.openai_api_key,
            settings.openai_base_url,
            settings.embedding_dimensions,
        )
    else:
        unused = f"; BRAINBOT_EMBEDDINGS={settings.embeddings} is not used"
        log.warning(
            "%s%s; for semantic search, %s",
            semantic_search_off(database.cpu_lacks),
            "" if settings.embeddings == "none" else unused,
            SEMANTIC_SEARCH_FIX,
        )
    vaults = Vaults(
        database,
        embedder,
        VaultSettings(
            data_dir=settings.data_dir,
            owner_dir=settings.vault_dir,
            categories=settings.categories,
            max_bytes=settings.max_note_bytes,
            max_attachment_bytes=settings.max_attachment_bytes,
        ),
        reembed=reembed,
        embed_in_background=embed_in_background,
    )
    ledger = skips or SkipLedger(database.engine)
    vaults.on_open.append(ledger.opened)
    vaults.on_written = ledger.indexed
    return vaults
