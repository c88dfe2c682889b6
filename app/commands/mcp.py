"""`brainbot mcp`: serve the tools to an MCP client over stdio (a desktop assistant
starts it as a subprocess), and `brainbot mcp token` to make, list and revoke the
bearer tokens that say which person a client acts as.

On stdio the protocol owns standard output: the real stdout is kept for it and
file descriptor 1 is pointed at stderr, so no print, log line or child process
(the embedded Postgres) can write into the protocol stream.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import sys
from collections.abc import Sequence
from typing import TextIO

import anyio

from adapters.base import Adapter
from adapters.platform import ConfigurationError
from app.brain_data import brain_settings
from app.commands.digest import outbound
from app.commands.token import TOKEN_ENV
from app.mcp_wiring import mcp_calls
from app.platforms import chat_members, deliver_via
from app.recovery import resume_cut_short
from app.runtime import Runtime
from bot import logs
from bot.config import Settings
from bot.events import Deliver
from bot.mcp_server import REFUSED, build_server
from storage.db import TokenInfo

log = logging.getLogger(__name__)

NO_TOKEN = (
    f"No MCP token was given, so nothing ran. Set {TOKEN_ENV} (or --token) in the "
    "client's settings to a token from `brainbot mcp token me`."
)


def main_stdio(args: argparse.Namespace) -> int:
    token = (args.token or os.environ.get(TOKEN_ENV, "")).strip()
    settings = brain_settings()
    protocol = _take_stdout()
    logs.configure(settings)
    return asyncio.run(serve_stdio(settings, token, protocol))


async def _resume(runtime: Runtime, deliver: Deliver) -> None:
    """File what a crash cut short (an MCP capture recorded but never filed, as a chat
    message of a process that died), so a desktop client alone loses nothing."""
    await resume_cut_short(runtime.engine, runtime.liveness, deliver)


def _take_stdout() -> TextIO:
    """The real stdout for the protocol; fd 1 (and `sys.stdout`) now go to stderr."""
    sys.stdout.flush()
    kept = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return io.TextIOWrapper(kept, encoding="utf-8", write_through=True)


async def serve_stdio(settings: Settings, token: str, protocol: TextIO) -> int:
    """Serve one client on stdin / `protocol` until it closes stdin."""
    try:
        async with outbound(settings) as senders:
            # A team note needs its reader still in the team's chat: the platforms say.
            runtime = await Runtime.open(settings, chats=chat_members(senders))
            try:
                return await _serve(runtime, senders, token, protocol)
            finally:
                await runtime.close()
    except ConfigurationError as exc:
        print(f"brainbot mcp: {exc}", file=sys.stderr)
        return 2


async def _serve(runtime: Runtime, senders: Sequence[Adapter], token: str, protocol: TextIO) -> int:
    from mcp.server.stdio import stdio_server

    tokens = runtime.records.mcp_tokens
    clock = runtime.engine.clock
    # A client shows what a call answers, not what goes to stderr: with no token or
    # a wrong one the server still starts, and every call answers why nothing ran.
    refused = NO_TOKEN if not token else REFUSED
    if not token or await tokens.find(token, clock()) is None:
        print(f"brainbot mcp: {refused}", file=sys.stderr)

    async def identify(request: object) -> TokenInfo | None:
        if not token:
            return None
        return await tokens.find(token, clock())  # a revoke takes effect at once

    deliver = deliver_via(senders)
    await _resume(runtime, deliver)
    server = build_server(mcp_calls(runtime, deliver), identify, refused)
    async with stdio_server(stdout=anyio.wrap_file(protocol)) as (read, write):
        await server.run(read, write, server.create_initialization_options())
    return 0
