"""`brainbot run` as one object: start everything in order, serve, drain, stop.

Start: the HTTP server first (so /healthz answers during a slow start and the
platform routes exist before Slack or Telegram call them), then the vault backup's
pull, the runtime (database, migrations, vault, index), then the adapters, the
MCP endpoint (/mcp, mounted with the platform routes, serving from here on), the
scheduler, the backup pusher, the re-processing of events a crash cut short, and
the watch for notes edited by hand (app.watch) next to the periodic sync.
/readyz says 200 only after all of that.

Stop (SIGTERM, SIGINT, or the console's end of input), within `grace` seconds:
/readyz turns 503 and no new digest starts; events being handled finish and
their replies are sent (each adapter stops taking new events and waits for its
own); then the backup's last push, the vault watcher, the MCP endpoint, the HTTP
server, and the runtime (the embedded database last). A second signal skips the
waiting.

This module knows adapters by their protocol (adapters.base) and the scheduler by
the small one below; `app.commands.run` builds the concrete ones from the settings.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Protocol

from sqlalchemy import text

from adapters.base import Adapter, EndsByItself
from app.api import CaptureApi
from app.backups import Backups, conflict_notifier, restore
from app.http import HttpServer, PortInUse
from app.mail import MailIn
from app.mcp_http import McpHttp
from app.platforms import (
    FALLBACK,
    GRACE_SECONDS,
    chat_members,
    deliver_via,
    door_title,
    how_to_claim,
)
from app.recovery import resume_cut_short
from app.runtime import Runtime
from app.watch import sync_store, watch_vaults
from bot import metrics
from bot.config import Settings
from bot.events import Deliver, Event, EventHandler, Reply
from storage import OWNER_VAULT_NAME
from storage.db import semantic_search_off
from storage.index import embedding_progress, embedding_running
from storage.vault import remote_of

log = logging.getLogger(__name__)

API_DOOR, MCP_DOOR = "API", "MCP"  # served by the HTTP server (/api/v1, /mcp)
FINAL_PUSH_SECONDS = 10.0


class Stoppable(Protocol):
    async def stop(self) -> None: ...


SchedulerStarter = Callable[[Runtime, Deliver], Awaitable[Stoppable]]


class InFlight:
    """Wraps the engine's `handle`, counting the events being handled, so that
    stopping can wait for them. New events wait until `open()`: the re-processing
    of events a crash cut short looks for unfinished events, and must not find
    (and handle a second time) one that is merely in progress here."""

    def __init__(self, handle: EventHandler) -> None:
        self._handle = handle
        self.count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._open = asyncio.Event()

    def open(self) -> None:
        self._open.set()

    async def __call__(self, event: Event) -> Sequence[Reply]:
        self.count += 1
        self._idle.clear()
        metrics.IN_FLIGHT.inc()
        try:
            await self._open.wait()
            return await self._handle(event)
        finally:
            self.count -= 1
            metrics.IN_FLIGHT.dec()
            if self.count == 0:
                self._idle.set()

    async def wait_idle(self) -> None:
        await self._idle.wait()


class Service:
    """Every part of a running brainbot (see the module doc)."""

    def __init__(
        self,
        settings: Settings,
        adapters: Sequence[Adapter],
        *,
        start_scheduler: SchedulerStarter | None = None,
        grace: float = GRACE_SECONDS,
    ) -> None:
        self.settings = settings
        self.adapters = adapters
        self.start_scheduler = start_scheduler
        self.grace = grace
        # A body may carry a file for the capture API (app.api): the largest kept.
        self.http = HttpServer(
            settings.http_host,
            settings.http_port,
            max_body=settings.max_attachment_bytes + 1_000_000,
        )
        self.mcp = McpHttp()  # /mcp: the tools for MCP clients, by bearer token
        # /api/v1: captures from share sheets and bookmarklets, by bearer token
        self.api = CaptureApi(settings.api_cors_origins)
        self.mail = MailIn.of(settings)  # BRAINBOT_IMAP_URL: mails become notes
        self.runtime: Runtime | None = None
        self.listening = False  # the HTTP server holds its port
        self.started: list[Adapter] = []
        self.hurry = asyncio.Event()  # a second signal: stop without waiting
        self._scheduler: Stoppable | None = None
        self._backups: Backups | None = None
        self._resume: asyncio.Task[None] | None = None
        self._probe: asyncio.Task[None] | None = None
        self._sync: asyncio.Task[None] | None = None
        self._pull: asyncio.Task[None] | None = None  # rounds of sync with the git remotes
        self._watch: asyncio.Task[None] | None = None
        self._stop_watching = asyncio.Event()
        self._gate: InFlight | None = None

    async def run(self, stop: asyncio.Event) -> int:
        """Start, serve until `stop` is set (or an adapter ends), then stop; the exit code."""
        code = 0
        try:
            await self._start()
            await self._serve(stop)
        except Exception as exc:
            log.error("brainbot could not start: %s (`brainbot doctor` says what to fix)", exc)
            log.debug("what failed at start", exc_info=True)
            code = 1
        finally:
            await self._stop()
        return code

    # -- start ---------------------------------------------------------------------------

    async def _start(self) -> None:
        await self._listen()
        await self._restore_backup()
        # What the engine says after a reply goes through the adapters, built already
        # and started below, before any event is let in (the gate opens after that).
        deliver = deliver_via(self.adapters)
        self.runtime = runtime = await Runtime.open(
            self.settings, deliver=deliver, chats=chat_members(self.adapters)
        )
        await self._announce_claim(runtime)
        self._gate = InFlight(runtime.engine.handle)
        for adapter in self.adapters:
            await adapter.start(self._gate, runtime.engine.access.is_allowed)
            self.started.append(adapter)
        await self.mcp.start(runtime, deliver, self._gate)
        if self.settings.git_remote:
            notify = conflict_notifier(runtime.vaults, runtime.records, deliver)
            self._backups = Backups(self.settings.git_remote, notify=notify)
        self.api.start(runtime, self._gate, self._backups)
        if self.mail is not None:
            self.mail.start(runtime, self._gate, deliver)
        if self.start_scheduler is not None:
            self._scheduler = await self.start_scheduler(runtime, deliver)
        if self._backups is not None:
            runtime.vaults.on_open.append(self._backups.opened)
            for store in runtime.vaults.opened():  # the owner's, opened with the runtime
                vault = await runtime.vaults.get(store.vault_id)
                if vault is not None:
                    await self._backups.opened(vault, store)
            if self.settings.git_pull_interval_seconds > 0:
                self._pull = asyncio.create_task(
                    self._backups.pull_every(self.settings.git_pull_interval_seconds)
                )
        self._resume = asyncio.create_task(self._resume_unfinished(runtime, deliver, self._gate))
        # The model is asked how to use it beside the start: a slow one never holds it up.
        self._probe = asyncio.create_task(runtime.probe_model())
        if self.settings.sync_interval_seconds > 0:
            self._sync = asyncio.create_task(
                follow_outside_edits(runtime, self.settings.sync_interval_seconds)
            )
        if self.settings.watch_vaults:
            self._watch = asyncio.create_task(
                watch_vaults(
                    runtime.vaults, self._stop_watching, runtime.skips, fallback=self._fallback()
                )
            )
        self._add_checks(runtime)
        self.http.ready()
        log.info("brainbot is ready: %s", self._open_doors())

    async def _listen(self) -> None:
        """Start the HTTP server with every route mounted. A port another program holds
        stops the start, naming the doors it would carry; only a terminal chat goes on
        without them."""
        carried: list[str] = []  # the doors the HTTP server carries
        for adapter in self.adapters:
            routes = len(self.http.app.router.routes())
            self.http.mount(adapter)
            if len(self.http.app.router.routes()) > routes:  # Slack HTTP mode, a webhook
                carried.append(door_title(adapter.platform))
        self.mcp.mount(self.http.app)
        self.api.mount(self.http.app)
        carried += [API_DOOR, MCP_DOOR]
        try:
            await self.http.start()
        except PortInUse as exc:
            lost = PortInUse(exc.host, exc.port, carried)
            if not any(a.platform == FALLBACK.name for a in self.adapters):
                raise lost from None
            log.warning("%s; chatting on without them and /healthz, /readyz, /metrics", lost)
            return
        self.listening = True

    def _open_doors(self) -> str:
        """ "console, API, MCP, mail; http://127.0.0.1:8080": the ways in that are open."""
        doors = [door_title(a.platform) for a in self.started]
        if self.listening:
            doors += [API_DOOR, MCP_DOOR]
        if self.mail is not None:
            doors.append("mail")
        where = f"; http://{self.http.host}:{self.http.port}" if self.listening else ""
        return ", ".join(doors) + where

    def _fallback(self) -> str:
        interval = self.settings.sync_interval_seconds
        if interval > 0:
            return f"notes edited by hand are found by the sync every {interval:g} s instead"
        return "notes edited by hand are found only at the next start (BRAINBOT_SYNC_INTERVAL=0)"

    async def _announce_claim(self, runtime: Runtime) -> None:
        """A platform install with no allow-list is closed until its owner claims it."""
        if self.settings.allowed_users or all(a.platform == FALLBACK.name for a in self.adapters):
            return
        code = await runtime.records.admission.claim_code(runtime.engine.clock())
        if code is not None:
            log.warning(
                "nobody may use this brainbot yet: %s to become its owner, or set "
                "BRAINBOT_ALLOWED_USERS",
                how_to_claim(code),
            )

    async def _restore_backup(self) -> None:
        """The owner's vault is brought up to its remote before the index opens."""
        remote = remote_of(self.settings.git_remote, OWNER_VAULT_NAME, owner=True)
        if remote:
            await asyncio.to_thread(restore, self.settings.vault_dir, remote)

    async def _resume_unfinished(self, runtime: Runtime, deliver: Deliver, gate: InFlight) -> None:
        """Re-process what a crash cut short, then let new events through."""
        try:
            await self._resume_cut_short(runtime, deliver)
        finally:
            gate.open()

    async def _resume_cut_short(self, runtime: Runtime, deliver: Deliver) -> None:
        if not await resume_cut_short(runtime.engine, runtime.liveness, deliver):
            return
        try:
            reading = await runtime.engine.enricher.resume(runtime.liveness.is_alive)
        except Exception:
            log.exception("resuming the reading of shared links and files failed")
            return
        if reading:
            log.info("reading the links and files of %d note(s) a restart cut short", reading)

    def _add_checks(self, runtime: Runtime) -> None:
        async def database() -> str | None:
            async with runtime.database.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return None

        async def vault() -> str | None:
            return await asyncio.to_thread(_vault_problem, runtime)

        async def adapters() -> str | None:
            down = [a.platform for a in self.started if getattr(a, "connected", True) is False]
            return f"not connected: {', '.join(down)}" if down else None

        self.http.checks.update(database=database, vault=vault, adapters=adapters)
        if self._backups is not None:  # a remote out of reach is told, not a reason to stop
            self.http.notes["sync"] = self._backups.problems

        if runtime.llm is not None:  # without one, the start's log line says so

            async def model() -> str | None:
                return runtime.model_mode()

            self.http.notes["model"] = model
        if not runtime.database.vectors:
            off = semantic_search_off(runtime.database.cpu_lacks)

            async def semantic_search() -> str | None:
                return off

            self.http.notes["search"] = semantic_search
        if runtime.vaults.embedder is not None:

            async def embeddings() -> str | None:
                if not any(embedding_running(s.index) for s in runtime.vaults.opened()):
                    return None  # no need to count the notes of every vault
                progress = await embedding_progress(runtime.database.engine)
                return None if progress is None else str(progress)

            self.http.notes["embeddings"] = embeddings

    # -- serve ---------------------------------------------------------------------------

    async def _serve(self, stop: asyncio.Event) -> None:
        waits: list[asyncio.Future[object]] = [asyncio.ensure_future(stop.wait())]
        waits += [
            asyncio.ensure_future(a.wait_closed())
            for a in self.started
            if isinstance(a, EndsByItself)
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    # -- stop ----------------------------------------------------------------------------

    async def _stop(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace
        self.http.stopping()
        if self.started:
            log.info("stopping: finishing the events in progress (at most %g s)", self.grace)
        for task in (self._sync, self._pull, self._probe):
            if task is not None:
                task.cancel()
        self._stop_watching.set()
        if self._scheduler is not None:
            await self._step("the scheduler", self._scheduler.stop(), deadline)
        if self._resume is not None:
            await self._step("re-processing", self._resume, deadline)
        elif self._gate is not None:
            self._gate.open()  # the start failed before re-processing: drain what came in
        if self.mail is not None:
            await self._step("email in", self.mail.stop(), deadline)
        stops = [a.stop() for a in reversed(self.started)]
        await self._step("the adapters", asyncio.gather(*stops, return_exceptions=True), deadline)
        if self._gate is not None:
            await self._step("events in progress", self._gate.wait_idle(), deadline)
        if self._backups is not None:
            await self._step("the backup", self._backups.stop(FINAL_PUSH_SECONDS), None)
        if self._watch is not None:
            await self._step("the vault watcher", self._watch, deadline)
        self.api.stop()
        await self.mcp.stop()
        await self.http.stop()
        if self.runtime is not None:
            await self.runtime.close()
        log.info("brainbot stopped")

    async def _step(self, what: str, step: Awaitable[object], deadline: float | None) -> None:
        """Wait for one stopping step until the deadline (or a second signal)."""
        task = asyncio.ensure_future(step)
        hurry = asyncio.ensure_future(self.hurry.wait())
        timeout = (
            None if deadline is None else max(0.0, deadline - asyncio.get_running_loop().time())
        )
        try:
            await asyncio.wait({task, hurry}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            hurry.cancel()
        if not task.done():
            log.warning("stopping %s took too long; cut short", what)
            task.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await task
        elif not task.cancelled() and task.exception() is not None:
            log.warning("stopping %s failed: %r", what, task.exception())


async def follow_outside_edits(runtime: Runtime, interval: float) -> None:
    """Index what changed in the vault outside the bot (a hand edit, a `git pull`):
    each sync reads the git diff since the last one, so a quiet vault costs little.
    With the watcher (app.watch) this is the safety net for what it misses."""
    while True:
        await asyncio.sleep(interval)
        # Vaults not open now are synced when they open.
        for store in runtime.vaults.opened():
            await sync_store(store, "changed outside the bot", runtime.skips)


def _vault_problem(runtime: Runtime) -> str | None:
    """None when a file can be created and removed in the vault's git folder."""
    probe = runtime.store.vault.root / ".git" / f"brainbot-ready-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return f"cannot write in the vault: {exc.strerror or exc}"
    return None
