"""The one HTTP server of `brainbot run` (BRAINBOT_HTTP_HOST:BRAINBOT_HTTP_PORT).

- `/healthz`: the process is alive and its event loop answers (Docker HEALTHCHECK).
- `/readyz`: 200 once started, when every readiness check passes (database
  reachable, vault writable, adapters connected); 503 with what is wrong, as JSON,
  while starting, stopping or failing (take it out of a load balancer). Work a
  ready process still does in the background (re-embedding every note for a new
  embedder), and what it cannot do on this machine (semantic search, on a CPU the
  embedded server's pgvector cannot run on), is told under "notes" and keeps it ready.
- `/metrics`: Prometheus text from `bot.metrics`.
- The platform routes adapters add through `mount(app)`: Slack HTTP mode's
  `/slack/events` and the Telegram webhook.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from adapters.base import Mountable
from bot import metrics

log = logging.getLogger(__name__)

Check = Callable[[], Awaitable[str | None]]  # None when fine, else what is wrong
CHECK_TIMEOUT = 3.0
# A client gets this long to send a request's head, and again its body; then it is
# dropped. Without it a few slow connections (slowloris) would hold the server.
HEAD_TIMEOUT = 5.0
BODY_TIMEOUT = 10.0
KEEPALIVE_TIMEOUT = 15.0


class PortInUse(Exception):
    """Another program listens on the configured address: says which, what cannot open
    for it (`lost`: the doors the server carries, named as the ready line names them),
    and what to change."""

    def __init__(self, host: str, port: int, lost: Sequence[str] = ()) -> None:
        doors = f", so these doors cannot open: {', '.join(lost)}" if lost else ""
        super().__init__(
            f"port {port} on {host} is already in use (by another brainbot?){doors}: set "
            "BRAINBOT_HTTP_PORT to a free port (or stop the program that holds it)"
        )
        self.host = host
        self.port = port
        self.lost = tuple(lost)


class HttpServer:
    """Health, readiness and metrics, plus whatever the adapters mount."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        head_timeout: float = HEAD_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
        max_body: int = 1024**2,
    ) -> None:
        self.host = host
        self.port = port
        self.head_timeout = head_timeout
        self.app = web.Application(
            middlewares=[_body_deadline(body_timeout, max_body)], client_max_size=max_body
        )
        self.app.router.add_get("/healthz", self._healthz)
        self.app.router.add_get("/readyz", self._readyz)
        self.app.router.add_get("/metrics", self._metrics)
        self.checks: dict[str, Check] = {}
        # What a ready process is still doing (None: nothing), told but never unready.
        self.notes: dict[str, Check] = {}
        self.phase = "starting"  # starting | ready | stopping
        self._runner: web.AppRunner | None = None

    def mount(self, adapter: object) -> None:
        """Let an adapter add its routes (Slack HTTP mode, Telegram webhook)."""
        if isinstance(adapter, Mountable):
            adapter.mount(self.app)

    async def start(self) -> None:
        """Listen (port 0 picks a free port; `self.port` then holds it)."""
        runner = web.AppRunner(
            self.app,
            handle_signals=False,
            access_log=None,
            keepalive_timeout=KEEPALIVE_TIMEOUT,
            lingering_time=1.0,  # what a client still sends after our answer is not awaited
        )
        await runner.setup()
        site = _GuardedSite(runner, self.host, self.port, self.head_timeout)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(self.host, self.port) from exc
            raise
        self._runner = runner
        self.port = site.port
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
        body: dict[str, Any] = {"ready": True, "checks": sorted(self.checks)}
        notes = await self._notes()
        if notes:
            body["notes"] = notes
        return web.json_response(body)

    async def _notes(self) -> dict[str, str]:
        names = list(self.notes)
        told = await asyncio.gather(*(self._run_note(name) for name in names))
        return {name: note for name, note in zip(names, told, strict=True) if note}

    async def _run_note(self, name: str) -> str | None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT):
                return await self.notes[name]()
        except Exception as exc:
            log.warning("readiness note %s failed: %r", name, exc)
            return None

    async def _metrics(self, request: web.Request) -> web.Response:
        body, content_type = metrics.exposition()
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response


def _body_deadline(timeout: float, max_body: int) -> Any:
    @web.middleware
    async def body_deadline(request: web.Request, handler: Handler) -> web.StreamResponse:
        """Read the whole body within `timeout` (aiohttp keeps it for the handler), at
        most `max_body` bytes."""
        if request.body_exists:
            try:
                async with asyncio.timeout(timeout):
                    await request.read()
            except TimeoutError:
                response = web.Response(status=408, text="request body too slow")
                response.force_close()
                return response
            except web.HTTPRequestEntityTooLarge:
                return web.json_response(
                    {"error": f"the request is larger than {max_body:,} bytes"}, status=413
                )
        return await handler(request)

    return body_deadline


class _GuardedSite(web.TCPSite):
    """A TCP site whose connections must send their first request head in time."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, head_timeout: float) -> None:
        super().__init__(runner, host, port)
        self._head_timeout = head_timeout

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _HeadDeadline(server(), self._head_timeout), self._host, self._port
        )
        self._bound_port = int(self._server.sockets[0].getsockname()[1])


class _HeadDeadline(asyncio.Protocol):
    """Passes everything to aiohttp's protocol, and closes the connection when the
    request head (up to the blank line) has not arrived within `timeout` seconds."""

    def __init__(self, inner: Any, timeout: float) -> None:
        self._inner = inner
        self._timeout = timeout
        self._timer: asyncio.TimerHandle | None = None
        self._seen = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._timer = asyncio.get_running_loop().call_later(self._timeout, transport.close)
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            self._seen = (self._seen + data)[-4096:]
            if b"\r\n\r\n" in self._seen:
                self._timer.cancel()
                self._timer = None
                self._seen = b""
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()  # type: ignore[no-any-return]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()
