"""The aiohttp-to-ASGI bridge under /mcp: an answer streamed in parts reaches the client
part by part (Server-Sent Events need it), and a client that hangs up early is a
disconnect, not an error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from app.mcp_http import serve_asgi


class Streamer:
    """An ASGI app that sends one event, waits to be let go, then sends another."""

    def __init__(self) -> None:
        self.go_on = asyncio.Event()
        self.seen: dict[str, Any] = {}
        self.disconnected = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.seen = {"scope": scope, "body": (await receive())["body"]}
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"data: one\n\n", "more_body": True})
        await self.go_on.wait()
        await send({"type": "http.response.body", "body": b"data: two\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        if (await receive())["type"] == "http.disconnect":
            self.disconnected.set()


@pytest.fixture
async def served() -> AsyncIterator[tuple[str, Streamer]]:
    app_under_test = Streamer()

    async def handler(request: web.Request) -> web.StreamResponse:
        return await serve_asgi(app_under_test, request, {"brainbot.token": "who"})

    app = web.Application()
    app.router.add_route("*", "/mcp", handler)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/mcp?x=1", app_under_test
    finally:
        await runner.cleanup()


async def test_a_streamed_answer_arrives_part_by_part(served: tuple[str, Streamer]) -> None:
    url, streamer = served
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=b'{"a": 1}', headers={"X-Probe": "yes"}) as response,
    ):
        assert response.headers["Content-Type"] == "text/event-stream"
        first = await asyncio.wait_for(response.content.readuntil(b"\n\n"), 5)
        assert first == b"data: one\n\n"  # before the app has written the second part
        streamer.go_on.set()
        assert await response.content.read() == b"data: two\n\n"
    scope = streamer.seen["scope"]
    assert streamer.seen["body"] == b'{"a": 1}'
    assert (scope["method"], scope["path"], scope["query_string"]) == ("POST", "/mcp", b"x=1")
    assert (b"x-probe", b"yes") in scope["headers"]
    assert scope["brainbot.token"] == "who"
    await asyncio.wait_for(streamer.disconnected.wait(), 5)


async def test_a_client_that_hangs_up_early_is_a_disconnect(
    served: tuple[str, Streamer],
) -> None:
    url, streamer = served
    async with aiohttp.ClientSession() as session:
        response = await session.post(url, data=b"{}")
        assert await response.content.readuntil(b"\n\n") == b"data: one\n\n"
        response.close()
    streamer.go_on.set()
    await asyncio.wait_for(streamer.disconnected.wait(), 5)
