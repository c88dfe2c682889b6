"""`brainbot run` (every configured adapter) and `brainbot chat` (the terminal)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot.config import Settings
from bot.runtime import Runtime


def register(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="start the bot (console chat when no platform is set)")
    run.set_defaults(func=lambda args: asyncio.run(_run(console_only=False)))
    chat = subparsers.add_parser("chat", help="chat with the bot in this terminal")
    chat.set_defaults(func=lambda args: asyncio.run(_run(console_only=True)))


async def _run(*, console_only: bool) -> int:
    from adapters.console import ConsoleAdapter

    settings = Settings()
    logging.basicConfig(level=settings.log_level, format="%(levelname)s %(name)s: %(message)s")
    runtime = await Runtime.open(settings)
    console = ConsoleAdapter()
    try:
        await console.start(runtime.engine.handle)
        await console.wait_closed()
    finally:
        await console.stop()
        await runtime.close()
    return 0
