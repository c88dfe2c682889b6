"""The engine's collaborators, built from the settings and handed in (the composition
root composes; the engine decides): who may write and who they are, the tool runner and
what answers with it, the button handlers, the model's turn, and what reads a message's
links and files after the reply. What they say later (a page that could not be read,
related notes, a timeline line) goes out through the `deliver` they are built with."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

from app.platforms import titles
from bot import tools
from bot.buttons import (
    Approvals,
    Buttons,
    ConflictButtons,
    DigestButtons,
    Filing,
    MentionLinks,
    PastButtons,
    ReminderButtons,
    SourceButtons,
    UndoButton,
)
from bot.capture import AfterCapture, Capturing
from bot.commands import NoteChoice, Router
from bot.config import Settings
from bot.connect import LinkButton, Related, Timeline, TimelineChoice
from bot.custom_tools import VaultTools
from bot.engine import Engine, EngineParts, utcnow
from bot.enrich import Arrivals, Enricher, FetchPolicy, Hearing, Readers, Speech, choose
from bot.events import Deliver
from bot.llm import LLM
from bot.people import Access, People, RateLimit
from bot.readers import ReaderPool
from bot.tools import ToolRunner
from bot.turn import Agent, ModelMode, Summaries, Verdict, estimate_tokens, tool_schemas
from storage import Vaults
from storage.db import Records

log = logging.getLogger(__name__)

SPEECH_NICE = 10  # the transcription process yields the CPU to the chat's


def build_engine(
    *,
    vaults: Vaults,
    records: Records,
    settings: Settings,
    llm: LLM | None,
    clock: Callable[[], datetime] = utcnow,
    owner: int = 0,
    deliver: Deliver | None = None,
) -> Engine:
    """The engine of one process, its collaborators built from `settings` (`owner`:
    this process's liveness token, recorded on each event; `deliver`: where what they
    say after a reply goes, None when nobody is told)."""
    parts = engine_parts(
        vaults=vaults,
        records=records,
        settings=settings,
        llm=llm,
        clock=clock,
        owner=owner,
        deliver=deliver,
    )
    return Engine(
        parts, vaults=vaults, records=records, settings=settings, clock=clock, owner=owner
    )


def engine_parts(
    *,
    vaults: Vaults,
    records: Records,
    settings: Settings,
    llm: LLM | None,
    clock: Callable[[], datetime],
    owner: int,
    deliver: Deliver | None,
) -> EngineParts:
    """Every collaborator of the engine, as the settings ask for them."""
    access = Access(records, settings.allowed_users, platforms=titles())
    vault_tools = VaultTools(settings.tool_hosts, settings.secret_vaults)
    runner = ToolRunner(
        tools.REGISTRY,
        settings.approval_tools,
        settings.approval_ttl_seconds,
        settings.direct_changes,
        custom=vault_tools.specs_for,
    )
    hearing = choose(settings.transcribe_setting, llm is not None, settings.transcribe_model_dir)
    log.info("voice notes: %s (%s)", hearing.mode, hearing.why)
    enricher = _enricher(
        vaults, records, settings, llm, hearing, clock=clock, owner=owner, deliver=deliver
    )
    arrivals = Arrivals(enricher, runner, llm, hearing)
    after = AfterCapture(
        arrivals,
        Timeline(deliver=deliver),  # people and projects a capture names (bot.connect)
        Related(runner, auto_link=settings.auto_link, clock=clock, deliver=deliver),
    )
    capturing = Capturing(runner, arrivals, after)
    router = Router(runner, access, captures=capturing.words, reread=arrivals.reread)
    approvals = Approvals(runner)
    buttons = Buttons(
        [
            approvals,
            Filing(runner),
            UndoButton(runner),
            # Digest buttons work in every process, whichever one sent the digest.
            DigestButtons(records.digest_messages),
            MentionLinks(records.digest_messages, runner),
            PastButtons(records.digest_messages),
            ReminderButtons(),
            ConflictButtons(),
            NoteChoice(router.notes),
            SourceButtons(),
            TimelineChoice(),
            LinkButton(runner),
        ]
    )
    agent = (
        Agent(
            llm,
            runner,
            max_rounds=settings.llm_max_rounds,
            history_tokens=settings.history_token_budget,
            max_tool_calls=settings.max_tool_calls,
            mode=model_mode(llm, settings),
            summaries=Summaries(llm, records, budget=settings.history_token_budget),
        )
        if llm is not None
        else None
    )
    return EngineParts(
        access=access,
        people=People(records, default_time=settings.digest_time, default_zone=settings.timezone),
        runner=runner,
        router=router,
        approvals=approvals,
        buttons=buttons,
        verdict=Verdict(runner, router.answer),
        agent=agent,
        enricher=enricher,
        arrivals=arrivals,
        after=after,
        capturing=capturing,
        rate=RateLimit(settings.rate_limit_per_minute),
    )


def model_mode(llm: LLM, settings: Settings) -> ModelMode:
    """How turns ask `llm`: BRAINBOT_LLM_MODE, or probed (bot.turn.mode) against what the
    full tool list costs with these categories."""
    tools_tokens = estimate_tokens(json.dumps(tool_schemas(settings.categories)))
    return ModelMode(
        llm, settings.llm_mode, tools_tokens=tools_tokens, answer_tokens=settings.llm_max_tokens
    )


def fetch_policy(settings: Settings) -> FetchPolicy:
    """The limits of a shared link's fetch, from the settings (their one home)."""
    return FetchPolicy(
        max_bytes=settings.fetch_max_bytes,
        timeout=settings.fetch_timeout,
        allow_private=settings.fetch_allow_private,
        trusted_hosts=frozenset(settings.fetch_trusted_hosts),
        max_redirects=settings.max_redirects,
    )


def _enricher(
    vaults: Vaults,
    records: Records,
    settings: Settings,
    llm: LLM | None,
    hearing: Hearing,
    *,
    clock: Callable[[], datetime],
    owner: int,
    deliver: Deliver | None,
) -> Enricher:
    """What reads a saved note's links and files after the reply (bot.enrich), in
    reader processes held to the settings' memory and time (bot.readers)."""
    fetching = fetch_policy(settings)
    return Enricher(
        records.enrichments,
        vaults,
        Readers(
            fetching if settings.fetch_links else None,
            settings.read_files,
            llm,
            settings.vision_model,
            ReaderPool(
                memory_bytes=settings.read_memory_mb * 1024 * 1024,
                seconds=settings.read_timeout,
            ),
            _speech(settings, hearing),
        ),
        owner=owner,
        timeout=settings.enrich_timeout,
        max_file_bytes=settings.max_attachment_bytes,
        max_note_bytes=settings.max_note_bytes,
        records=records,
        clock=clock,
        deliver=deliver,
    )


def _speech(settings: Settings, hearing: Hearing) -> Speech | None:
    """Local transcription's one reader process (one clip at a time, niced below the
    chat, kept with its model loaded), when voice notes are heard here."""
    if hearing.mode != "local" or hearing.model_dir is None:
        return None
    memory = settings.transcribe_memory_mb * 1024 * 1024
    pool = ReaderPool(
        memory_bytes=memory,
        seconds=settings.transcribe_timeout,
        processes=1,
        recycle_bytes=memory // 2,
        nice=SPEECH_NICE,
    )
    return Speech(
        str(hearing.model_dir), settings.transcribe_language, pool, settings.transcribe_timeout
    )
