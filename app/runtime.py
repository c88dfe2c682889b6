"""Everything a running brainbot needs, built once from Settings and closed in order."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.engine_parts import build_engine
from app.skips import SkipLedger
from app.tool_checks import unknown_secret_vaults
from app.vaults_from_settings import make_vaults
from bot import metrics
from bot.config import Settings
from bot.custom_tools import load_plugins
from bot.engine import Engine, utcnow
from bot.events import Deliver
from bot.llm import LLM, LLMLimits
from bot.people import ChatMembers, People, TeamMembership
from storage import OWNER_VAULT, Store, Vaults, migrate
from storage.db import Database, ProcessLiveness, Records
from storage.text.dates import prepare

log = logging.getLogger(__name__)


def llm_from_settings(settings: Settings) -> LLM | None:
    """The model client the settings describe, None without an endpoint or key."""
    if not settings.llm_enabled:
        return None
    return LLM(
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


@dataclass
class Runtime:
    settings: Settings
    database: Database
    vaults: Vaults
    store: Store  # the owner's vault (vault 1, BRAINBOT_VAULT_DIR)
    records: Records
    llm: LLM | None
    engine: Engine
    liveness: ProcessLiveness
    teams: TeamMembership  # checks team members against their chats
    skips: SkipLedger  # what syncs and the watcher left out, for doctor

    @classmethod
    async def open(
        cls,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
        deliver: Deliver | None = None,
        chats: Mapping[str, ChatMembers] | None = None,
        serving: bool = True,
    ) -> Runtime:
        """Connect the database (embedded when no DATABASE_URL), bring its schema up to
        date (migrations), open the vault and index. `deliver` sends what the engine
        says after a reply (None: nobody is told); `chats` are the platforms that say
        who is in a team's chat (none: memberships are kept while trusted). `serving`:
        it will wait for messages (run, chat, mcp), so the date parser loads now; a
        command that does one thing and ends (approve, digest) loads it only if it
        reads a written date."""
        database = await Database.connect(settings.database_url, settings.data_dir)
        try:
            applied = await migrate(database.engine)
            if applied:
                log.info("database schema migrated: %s", "; ".join(m.name for m in applied))
            skips = SkipLedger(database.engine)
            vaults = make_vaults(settings, database, skips=skips)
            store = await vaults.store(OWNER_VAULT)
            records = Records(database.engine, counted=metrics.error)
            await records.create_schema()
            liveness = await ProcessLiveness.acquire(database.engine)
            # The date parser's tables load now, not on someone's first dated message.
            if serving:
                await asyncio.to_thread(prepare)
        except BaseException:
            await database.close()
            raise
        llm = llm_from_settings(settings)
        if llm is None:
            log.info("no OPENAI_API_KEY or OPENAI_BASE_URL: using the command router")
        elif settings.llm_tools is not None:
            log.warning(
                "BRAINBOT_LLM_TOOLS=%s is read as BRAINBOT_LLM_MODE=%s%s: rename it, or unset it "
                "and let brainbot ask the endpoint (BRAINBOT_LLM_MODE=auto)",
                settings.llm_tools,
                settings.llm_mode,
                " (BRAINBOT_LLM_MODE, set too, wins)" if settings.llm_mode_setting else "",
            )
        load_plugins()  # before the engine: its tool list is built once
        for line in unknown_secret_vaults(settings):
            log.warning("%s; the secret is not given to it", line)
        engine = build_engine(
            vaults=vaults,
            records=records,
            settings=settings,
            llm=llm,
            clock=clock,
            owner=liveness.token,
            deliver=deliver,
        )
        teams = TeamMembership(
            vaults,
            records,
            settings.team_vaults,
            clock,
            fresh_for=timedelta(hours=settings.team_check_hours),
            platforms=dict(chats or {}),
        )
        teams.install()
        return cls(settings, database, vaults, store, records, llm, engine, liveness, teams, skips)

    @property
    def people(self) -> People:
        """Who uses this brainbot (the engine's, with its caches)."""
        return self.engine.people

    def model_mode(self) -> str:
        """How chat asks the model now, and why (the line the log and /readyz say)."""
        agent = self.engine.agent
        if agent is None:
            return "none: no OPENAI_API_KEY or OPENAI_BASE_URL, the command router answers"
        return agent.mode.choice.line()

    async def probe_model(self) -> None:
        """Ask the endpoint how to use it, now rather than on the first message (a forced
        mode is only told)."""
        agent = self.engine.agent
        if agent is not None:
            await agent.mode.settle()
            if agent.mode.forced:
                log.info("model mode %s", agent.mode.choice.line())

    async def close(self) -> None:
        # Reading jobs still running stay waiting in the database for the next start.
        await self.engine.enricher.close()
        await self.engine.timeline.close()
        await self.engine.related.close()
        if self.engine.agent is not None:
            await self.engine.agent.summaries.close()
        if self.llm is not None:
            await self.llm.close()
        await self.vaults.close()
        await self.liveness.release()
        await self.database.close()
