"""`brainbot run` (every configured platform, the scheduler and the HTTP server) and
`brainbot chat` (the terminal only).

With no platform configured, `run` chats in the terminal when its standard input is
one; anywhere else (systemd, nohup, Docker, `</dev/null`) it is headless: the HTTP API,
MCP over HTTP, email in and the scheduler, until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from adapters.base import EndsByItself
from adapters.console import CONSOLE
from adapters.platform import ConfigurationError
from app.brain_data import announce_new
from app.mail import refusal as mail_refusal
from app.platforms import (
    GRACE_SECONDS,
    PLATFORMS,
    Platforms,
    build_adapters,
    configured,
    host,
    own,
    titles,
)
from app.runtime import Runtime
from app.serve import Service, Stoppable
from app.settings_check import EXIT_CONFIG
from bot import logs
from bot.config import Settings
from bot.events import Deliver

log = logging.getLogger(__name__)


def configure_logs(settings: Settings, *, console: bool) -> None:
    """Logs to stderr; but a chat at a terminal logs to a file (said once), so no log
    line prints over the prompt or the line being typed."""
    if console and sys.stdin.isatty():
        path = logs.configure_terminal_chat(settings)
        print(f"(logs go to {path})", flush=True)
    else:
        logs.configure(settings)


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


def main_chat(args: argparse.Namespace) -> int:
    """`brainbot chat`: until /quit, Ctrl-D or the end of input; Ctrl-C ends it cleanly.
    The settings come checked in `args.settings` (app.cli)."""
    settings: Settings = args.settings
    announce_new(settings, sys.stdout)
    configure_logs(settings, console=True)
    try:
        return asyncio.run(_chat(settings))
    except KeyboardInterrupt:  # the console has said goodbye; no traceback
        return 0


async def _chat(settings: Settings) -> int:
    console = CONSOLE.build(own(CONSOLE, settings), host(settings, GRACE_SECONDS))
    assert isinstance(console, EndsByItself), "the console ends with its input"
    runtime = await Runtime.open(settings)
    loop = asyncio.get_running_loop()
    # Through the loop's own handler, Ctrl-C wakes the loop whichever thread the kernel
    # hands it to: taken by an idle worker thread (git, the line reader), it otherwise
    # waited for the loop's next event, and the chat hung at its prompt.
    loop.add_signal_handler(signal.SIGINT, console.end)
    try:
        await console.start(runtime.engine.handle)
        await console.wait_closed()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await console.stop()
        await runtime.close()
    return 0
