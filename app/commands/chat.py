"""`brainbot chat`: the terminal only, on the brain `brainbot run` serves; and how a
command that may chat at a terminal logs.

Kept apart from `run` so that a chat imports neither the HTTP server nor MCP over
HTTP, email in or the watcher, which it does not start."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from adapters.base import EndsByItself
from adapters.console import CONSOLE
from app.brain_data import announce_new
from app.platforms import GRACE_SECONDS, host, own
from app.runtime import Runtime
from bot import logs
from bot.config import Settings


def configure_logs(settings: Settings, *, console: bool) -> None:
    """Logs to stderr; but a chat at a terminal logs to a file (said once), so no log
    line prints over the prompt or the line being typed."""
    if console and sys.stdin.isatty():
        path = logs.configure_terminal_chat(settings)
        print(f"(logs go to {path})", flush=True)
    else:
        logs.configure(settings)


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
