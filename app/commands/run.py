"""`brainbot run` (every configured platform, the scheduler and the HTTP server) and
`brainbot chat` (the terminal only)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from adapters.base import Adapter
from app.mail import refusal as mail_refusal
from app.runtime import Runtime
from app.serve import GRACE_SECONDS, Service, Stoppable
from app.settings_check import EXIT_CONFIG, load_settings
from bot import logs
from bot.config import Settings
from bot.events import Deliver

log = logging.getLogger(__name__)


class ConfigurationError(Exception):
    """The settings name a platform but not enough to start it."""


def register(subparsers: Any) -> None:
    run = subparsers.add_parser(
        "run",
        help="start the bot: Slack, Telegram (or the console), digests, health and metrics",
    )
    run.set_defaults(func=lambda args: main_run())
    chat = subparsers.add_parser("chat", help="chat with the bot in this terminal")
    chat.set_defaults(func=lambda args: main_chat())


def build_adapters(settings: Settings, *, console_fallback: bool = True) -> list[Adapter]:
    """An adapter per configured platform; the console when none is configured (and
    `console_fallback`). Each SDK is imported only when its platform is on."""
    adapters: list[Adapter] = []
    if settings.slack_bot_token:
        if not (settings.slack_app_token or settings.slack_signing_secret):
            raise ConfigurationError(
                "SLACK_BOT_TOKEN is set, but neither SLACK_APP_TOKEN (Socket Mode) nor "
                "SLACK_SIGNING_SECRET (HTTP mode at /slack/events): set one of them"
            )
        from adapters.slack import SlackAdapter

        adapters.append(
            SlackAdapter(
                settings.slack_bot_token,
                app_token=settings.slack_app_token,
                signing_secret=settings.slack_signing_secret,
                api_url=settings.slack_api_url,
                shutdown_timeout=GRACE_SECONDS,
                max_file_bytes=settings.max_attachment_bytes,
                save_emoji=settings.slack_save_emoji,
            )
        )
    if settings.telegram_bot_token:
        from adapters.telegram import TelegramAdapter

        try:
            adapters.append(
                TelegramAdapter(
                    settings.telegram_bot_token,
                    api_url=settings.telegram_api_url,
                    webhook_url=settings.telegram_webhook_url,
                    webhook_secret=settings.telegram_webhook_secret,
                    max_file_bytes=settings.max_attachment_bytes,
                )
            )
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from exc
    if not adapters and console_fallback:
        from adapters.console import ConsoleAdapter

        log.info("no Slack or Telegram settings: chatting in this terminal")
        adapters.append(ConsoleAdapter(history_file=console_history(settings)))
    return adapters


def console_history(settings: Settings) -> Path:
    """The terminal chat's line history, kept between sessions."""
    return settings.data_dir / "console_history"


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


async def run(settings: Settings) -> int:
    """Serve until SIGTERM or SIGINT (a second one stops without waiting)."""
    refused = mail_refusal(settings)
    if refused is not None:
        log.error("%s", refused)
        return EXIT_CONFIG
    try:
        adapters = build_adapters(settings)
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


def main_run() -> int:
    settings = load_settings()
    configure_logs(settings, console=not (settings.slack_bot_token or settings.telegram_bot_token))
    return asyncio.run(run(settings))


def main_chat() -> int:
    """`brainbot chat`: until /quit, Ctrl-D or the end of input; Ctrl-C ends it cleanly."""
    settings = load_settings()
    configure_logs(settings, console=True)
    try:
        return asyncio.run(_chat(settings))
    except KeyboardInterrupt:  # the console has said goodbye; no traceback
        return 0


async def _chat(settings: Settings) -> int:
    from adapters.console import ConsoleAdapter

    runtime = await Runtime.open(settings)
    console = ConsoleAdapter(history_file=console_history(settings))
    loop = asyncio.get_running_loop()
    # Through the loop's own handler, Ctrl-C wakes the loop whichever thread the kernel
    # hands it to: taken by an idle worker thread (git, the line reader), it otherwise
    # waited for the loop's next event, and the chat hung at its prompt.
    loop.add_signal_handler(signal.SIGINT, console.closed.set)
    try:
        await console.start(runtime.engine.handle)
        await console.wait_closed()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await console.stop()
        await runtime.close()
    return 0
