"""`brainbot run`: every configured platform, the scheduler and the HTTP server
(`brainbot chat`, the terminal only, is app.commands.chat).

With no platform configured, `run` chats in the terminal when its standard input is
one; anywhere else (systemd, nohup, Docker, `</dev/null`) it is headless: the HTTP API,
MCP over HTTP, email in and the scheduler, until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from adapters.platform import ConfigurationError
from app.brain_data import announce_new
from app.commands.chat import configure_logs
from app.mail import refusal as mail_refusal
from app.platforms import (
    GRACE_SECONDS,
    PLATFORMS,
    Platforms,
    build_adapters,
    configured,
    titles,
)
from app.runtime import Runtime
from app.serve import Service, Stoppable
from app.settings_check import EXIT_CONFIG
from bot.config import Settings
from bot.events import Deliver

log = logging.getLogger(__name__)


async def _start_scheduler(runtime: Runtime, deliver: Deliver) -> Stoppable:
    from app.scheduling import start_scheduler

    return await start_scheduler(runtime, deliver)


async def run(
    settings: Settings, platforms: Platforms = PLATFORMS, *, console: bool = False
) -> int:
    """Serve `platforms` (those the settings turn on; with none, the console when
    `console`, else no chat at all) until SIGTERM or SIGINT (a second one stops without
    waiting), or until an adapter ends by itself."""
    refused = mail_refusal(settings)
    if refused is not None:
        log.error("%s", refused)
        return EXIT_CONFIG
    try:
        adapters = build_adapters(settings, GRACE_SECONDS, platforms, fallback=console)
    except ConfigurationError as exc:
        log.error("%s", exc)
        return EXIT_CONFIG
    service = Service(settings, adapters, start_scheduler=_start_scheduler)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(name: str) -> None:
        if stop.is_set():
            log.warning("%s again: stopping without waiting", name)
            service.hurry.set()
        else:
            log.info("%s: stopping", name)
            stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum.name)
    try:
        return await service.run(stop)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def main_run(args: argparse.Namespace) -> int:
    """`brainbot run`: the console only where someone can type (see the module doc). The
    settings come checked in `args.settings` (app.cli)."""
    settings: Settings = args.settings
    announce_new(settings)
    console = not configured(settings) and sys.stdin.isatty()
    configure_logs(settings, console=console)
    if not console and not configured(settings):
        log.info(
            "no %s settings and no terminal: serving the API, MCP and email without a chat "
            "(`brainbot chat` talks to the same notes)",
            titles(),
        )
    return asyncio.run(run(settings, console=console))
