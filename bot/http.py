"""The one HTTP server of `brainbot run` (BRAINBOT_HTTP_HOST:BRAINBOT_HTTP_PORT).

- `/healthz`: the process is alive and its event loop answers (Docker HEALTHCHECK).
- `/readyz`: 200 once started, when every readiness check passes (database
  reachable, vault writable, adapters connected); 503 with what is wrong, as JSON,
  while starting, stopping or failing (take it out of a load balancer).
- `/metrics`: Prometheus text from `bot.metrics`.
- The platform routes adapters add through `mount(app)`: Slack HTTP mode's
  `/slack/events` and the Telegram webhook.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from aiohttp import web

from bot import metrics

log = logging.getLogger(__name__)

Check = Callable[[], Awaitable[str | None]]  # None when fine, else what is wrong
CHECK_TIMEOUT = 3.0


@runtime_checkable
class Mountable(Protocol):
    def mount(self, app: web.Application) -> None: ...


class PortInUse(Exception):
    """Another program listens on the configured address: says which, and what to change."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(
            f"port {port} on {host} is already in use: set BRAINBOT_HTTP_PORT to a free port "
            "(or stop the program that holds it)"
        )
        self.host = host
        self.port = port


class HttpServer:
    """Health, readiness and metrics, plus whatever the adapters mount."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.app = web.Application()
        self.app.router.add_get("/healthz", self._healthz)
        self.app.router.add_get("/readyz", self._readyz)
        self.app.router.add_get("/metrics", self._metrics)
        self.checks: dict[str, Check] = {}
        self.phase = "starting"  # starting | ready | stopping
        self._runner: web.AppRunner | None = None

    def mount(self, adapter: object) -> None:
        """Let an adapter add its routes (Slack HTTP mode, Telegram webhook)."""
        if isinstance(adapter, Mountable):
            adapter.mount(self.app)

    async def start(self) -> None:
        """Listen (port 0 picks a free port; `self.port` then holds it)."""
        runner = web.AppRunner(self.app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(self.host, self.port) from exc
            raise
        self._runner = runner
        server: Any = site._server
        if server is not None and server.sockets:
            self.port = int(server.sockets[0].getsockname()[1])
        log.info("HTTP server on %s:%d (/healthz, /readyz, /metrics)", self.host, self.port)

    def ready(self) -> None:
        self.phase = "ready"
        metrics.READY.set(1)

    def stopping(self) -> None:
        self.phase = "stopping"
        metrics.READY.set(0)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def problems(self) -> dict[str, str]:
        """What keeps the process from being ready (empty when it is)."""
        if self.phase != "ready":
            return {"process": self.phase}
        names = list(self.checks)
        results = await asyncio.gather(
            *(self._run_check(name) for name in names), return_exceptions=False
        )
        return {name: problem for name, problem in zip(names, results, strict=True) if problem}

    async def _run_check(self, name: str) -> str | None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT):
                return await self.checks[name]()
        except TimeoutError:
            return f"no answer within {CHECK_TIMEOUT:g} s"
        except Exception as exc:
            log.warning("readiness check %s failed: %r", name, exc)
            return f"{type(exc).__name__}: {exc}"

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"alive": True, "phase": self.phase})

    async def _readyz(self, request: web.Request) -> web.Response:
        problems = await self.problems()
        if problems:
            return web.json_response({"ready": False, "problems": problems}, status=503)
        return web.json_response({"ready": True, "checks": sorted(self.checks)})

    async def _metrics(self, request: web.Request) -> web.Response:
        body, content_type = metrics.exposition()
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response
