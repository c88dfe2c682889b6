"""MCP over streamable HTTP at `/mcp` on the server of `brainbot run`, with
`Authorization: Bearer <token>` (see `brainbot mcp token`).

The SDK's transport is an ASGI app (StreamableHTTPSessionManager); `serve_asgi` bridges
one aiohttp request into it and streams its answer back, Server-Sent Events included.

It runs stateless: every request carries its token and is served on its own, with no
session kept in this process. So several `brainbot run` processes behind a load
balancer answer any request correctly, as they do for Slack and Telegram; what is
lost is only what brainbot does not use (server-to-client requests, resumable streams).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from aiohttp import web

from app.runtime import Runtime
from bot.events import Deliver, EventHandler
from storage.db import McpTokens, TokenInfo

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)

PATH = "/mcp"
SCOPE_KEY = "brainbot.token"  # where the request's checked token rides in the ASGI scope
Message = MutableMapping[str, Any]
AsgiApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[Message]],
        Callable[[Message], Awaitable[None]],
    ],
    Awaitable[None],
]
UNAUTHORISED = (
    "brainbot's MCP endpoint needs `Authorization: Bearer <token>` with a live token; "
    "make one with `brainbot mcp token PERSON`"
)


class McpHttp:
    """The `/mcp` route: mounted before the server starts, serving once `start` has
    the runtime (503 until then, and after `stop`). The MCP SDK is loaded, and its
    server built, at the first request with a live token: a start that no MCP client
    talks to does without its half a second of imports."""

    def __init__(self) -> None:
        self._manager: StreamableHTTPSessionManager | None = None
        self._tokens: McpTokens | None = None
        self._runtime: Runtime | None = None
        self._calls: tuple[Deliver, EventHandler | None] | None = None
        self._building = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def mount(self, app: web.Application) -> None:
        app.router.add_route("*", PATH, self._serve)

    async def start(
        self, runtime: Runtime, deliver: Deliver, handle: EventHandler | None = None
    ) -> None:
        """Serve from now on; a capture goes to `handle` (the engine's, through the gate
        that holds events while a restart re-processes what a crash cut short)."""
        self._calls = (deliver, handle)
        self._tokens, self._runtime = runtime.records.mcp_tokens, runtime

    async def _started(self, runtime: Runtime) -> StreamableHTTPSessionManager | None:
        """The SDK's session manager, built and running (None once stopping)."""
        async with self._building:
            if self._manager is None and self._calls is not None:
                from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

                from app.mcp_wiring import mcp_calls
                from bot.mcp_server import build_server

                deliver, handle = self._calls
                server = build_server(mcp_calls(runtime, deliver, handle), _token_of_request)
                manager = StreamableHTTPSessionManager(server, stateless=True)
                ready = asyncio.Event()
                # The manager's task group lives in a task of its own, entered and left there.
                self._task = asyncio.create_task(self._run(manager, ready))
                await ready.wait()
                self._manager = manager
            return self._manager

    async def _run(self, manager: StreamableHTTPSessionManager, ready: asyncio.Event) -> None:
        async with manager.run():
            ready.set()
            await self._stopping.wait()

    async def stop(self) -> None:
        self._manager = self._calls = None
        self._stopping.set()
        async with self._building:  # a build under way ends first
            if self._task is not None:
                await self._task
                self._task = None

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        tokens, runtime = self._tokens, self._runtime
        if self._calls is None or tokens is None or runtime is None:
            return web.json_response({"error": "brainbot is not ready"}, status=503)
        info = await tokens.bearer(request.headers.get("Authorization", ""), runtime.engine.clock())
        if info is None:
            return web.json_response(
                {"error": UNAUTHORISED},
                status=401,
                headers={"WWW-Authenticate": 'Bearer realm="brainbot", error="invalid_token"'},
            )
        manager = await self._started(runtime)
        if manager is None:
            return web.json_response({"error": "brainbot is not ready"}, status=503)
        return await serve_asgi(manager.handle_request, request, {SCOPE_KEY: info})


async def _token_of_request(request: Any) -> TokenInfo | None:
    """The token `_serve` checked for this request (the SDK hands its request over)."""
    scope = getattr(request, "scope", None) or {}
    info = scope.get(SCOPE_KEY)
    return info if isinstance(info, TokenInfo) else None


async def serve_asgi(
    app: AsgiApp, request: web.Request, extra: dict[str, Any]
) -> web.StreamResponse:
    """Run one aiohttp request through an ASGI app; its body parts are written as they
    come, so a streamed (SSE) answer reaches the client while it is being produced."""
    body = await request.read()
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?")[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [(name.lower(), value) for name, value in request.raw_headers],
        "client": (request.remote or "", 0),
        "server": (request.host, 0),
        **extra,
    }
    finished = asyncio.Event()
    body_sent = False
    response: web.StreamResponse | None = None

    async def receive() -> Message:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()  # no more body: the exchange is over when this ends
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal response
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for name, value in message.get("headers", []):
                if name.lower() != b"content-length":  # streamed: aiohttp frames it
                    response.headers.add(name.decode("latin-1"), value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body" and response is not None:
            if finished.is_set():
                return  # the client has gone: what is left has nobody to read it
            try:
                await response.write(message.get("body", b""))
                if not message.get("more_body", False):
                    await response.write_eof()
                    finished.set()  # answered: a later receive() hears the disconnect
            except ConnectionResetError:
                # A client may hang up once it has its answer (before the end of the
                # stream), as an ASGI server would treat it: a disconnect, not an error.
                finished.set()

    try:
        await app(scope, receive, send)
    finally:
        finished.set()
    if response is None:
        return web.Response(status=500, text="the MCP transport gave no answer")
    return response
