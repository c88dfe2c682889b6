"""The HTTP server drops clients that send their request slowly (slowloris), and still
answers everyone else."""

from __future__ import annotations

import asyncio
import time

from app.http import HttpServer

HEAD_TIMEOUT = 1.0


async def _connect(server: HttpServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.port)


async def test_a_slow_request_head_is_dropped_and_others_are_served() -> None:
    server = HttpServer("127.0.0.1", 0, head_timeout=HEAD_TIMEOUT)
    await server.start()
    try:
        reader, writer = await _connect(server)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        await writer.drain()
        started = time.monotonic()
        # Meanwhile a well-behaved client is served at once.
        quick_reader, quick_writer = await _connect(server)
        quick_writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (await asyncio.wait_for(quick_reader.read(), 5)).startswith(b"HTTP/1.1 200")
        quick_writer.close()

        assert await asyncio.wait_for(reader.read(), HEAD_TIMEOUT + 5) == b""  # closed
        assert time.monotonic() - started < HEAD_TIMEOUT + 3
        writer.close()
    finally:
        await server.stop()


async def test_a_slow_request_body_gets_408() -> None:
    server = HttpServer("127.0.0.1", 0, body_timeout=1.0)
    server.app.router.add_post("/echo", _echo)
    await server.start()
    try:
        reader, writer = await _connect(server)
        writer.write(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"a" * 10)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(100), 10)
        assert answer.startswith(b"HTTP/1.1 408")
        writer.close()
    finally:
        await server.stop()


async def _echo(request: object) -> object:
    from aiohttp import web

    assert isinstance(request, web.Request)
    return web.Response(body=await request.read())
