"""A small HTTP service on 127.0.0.1 that a vault declares as its custom tools:
weather (GET), a team board (POST), a huge answer, redirects (to anywhere), an answer in a
charset nobody knows, and items by id. Every request it
receives is recorded, so a test sees exactly what brainbot sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

HUGE_BYTES = 100_000


@dataclass(frozen=True)
class Seen:
    method: str
    path_qs: str  # as sent, still URL-encoded
    headers: dict[str, str]
    body: bytes


class ToolServer:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(
            Seen(request.method, request.raw_path, dict(request.headers), await request.read())
        )
        path = request.path
        if path.startswith("/weather/"):
            city = request.match_info["tail"].removeprefix("weather/")
            return web.json_response({"city": city, "sky": "sunny", "celsius": 21})
        if path == "/notes" and request.method == "POST":
            return web.json_response({"id": 7, "stored": True}, status=201)
        if path == "/huge":
            return web.Response(text="x" * HUGE_BYTES, content_type="text/plain")
        if path == "/away":
            raise web.HTTPFound(f"http://localhost:{self.port}/weather/elsewhere")
        if path == "/redirect":  # to `to`, written into the header as it is (raw UTF-8)
            return web.Response(status=302, headers={"Location": request.query["to"]})
        if path == "/here":
            raise web.HTTPFound("/weather/redirected")
        if path.startswith("/hops/"):  # /hops/3 → /hops/2 → … → the weather
            left = int(path.removeprefix("/hops/"))
            raise web.HTTPFound(f"/hops/{left - 1}" if left else "/weather/at-last")
        if path == "/odd-charset":
            body = "caf\u00e9 ok".encode() + b"\xff"
            charset = request.query.get("charset", "x-klingon")
            content_type = f"text/plain; charset={charset}"
            return web.Response(body=body, headers={"Content-Type": content_type})
        if path.startswith("/items/"):
            return web.json_response({"item": request.match_info["tail"]})
        return web.json_response({"error": "no such thing"}, status=404)
