"""The settings, read once at start: a bad value is one line naming the variable, its
value and an example (for `brainbot run`, `chat`, every other command, and `doctor`),
never a pydantic dump or a traceback."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from adapters.imap import BadMailboxUrl, mailbox_url
from app.platforms import PLATFORMS, Platforms, settings_class
from bot.config import SECRET_PREFIX, SECRET_VAULTS_SETTING, Settings
from storage.vault import DEFAULT_CATEGORIES

EXIT_CONFIG = 2  # the exit code of a start the settings stop

# An example of a good value for each setting whose value has a format (a platform's
# settings give theirs on their fields: `examples`).
EXAMPLES: dict[str, str] = {
    "BRAINBOT_TIMEZONE": "Europe/Berlin",
    "BRAINBOT_DIGEST_TIME": "07:30",
    "BRAINBOT_REMINDER_TIME": "09:00",
    "BRAINBOT_CATEGORIES": ",".join(DEFAULT_CATEGORIES),
    "BRAINBOT_ALLOWED_USERS": "slack:U0123ABC,telegram:42",
    "BRAINBOT_APPROVAL_TOOLS": "delete,move",
    "BRAINBOT_DIRECT_CHANGES": "append,tag,tick",
    "BRAINBOT_TOOL_HOSTS": "api.weather.example,intranet.local:8443",
    "BRAINBOT_FETCH_TRUSTED_HOSTS": "wiki.home.example,192.168.1.20",
    "BRAINBOT_API_CORS_ORIGINS": "https://wiki.example.org,http://localhost:3000",
    "BRAINBOT_TEAM_VAULTS": "slack:C0123=team-ops",
    SECRET_VAULTS_SETTING: "vault,ops",
    "DATABASE_URL": "postgresql://brainbot@localhost:5432/brainbot",
    "OPENAI_BASE_URL": "http://localhost:11434/v1",
    "BRAINBOT_HTTP_PORT": "8080",
    "BRAINBOT_HTTP_HOST": "127.0.0.1",
    # Sizes: the defaults, from their one home.
    "BRAINBOT_MAX_NOTE_BYTES": str(Settings.model_fields["max_note_bytes"].default),
    "BRAINBOT_MAX_ATTACHMENT_BYTES": str(Settings.model_fields["max_attachment_bytes"].default),
    "BRAINBOT_MAX_MESSAGE_CHARS": str(Settings.model_fields["max_message_chars"].default),
    "BRAINBOT_EMBEDDINGS": "openai, local or none",
    "BRAINBOT_EMBEDDING_DIMENSIONS": "1536",
    "BRAINBOT_LLM_TOOLS": "all or routed",
    "BRAINBOT_LLM_MODE": "auto, tools, routed or none",
    "BRAINBOT_LOG_LEVEL": "INFO",
    "BRAINBOT_CONFIDENCE_THRESHOLD": "0.6",
    "BRAINBOT_LLM_STREAM": "true",
    "BRAINBOT_WATCH": "true",
}


class SettingsInvalid(Exception):
    """The settings cannot be used; `lines` says why, one line per bad variable."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def load_settings(platforms: Platforms = PLATFORMS) -> Settings:
    """The settings, brainbot's and each of `platforms`', every formatted value parsed;
    SettingsInvalid if any is bad."""
    model = settings_class(platforms)
    try:
        settings = model()
    except ValidationError as exc:
        examples = {**examples_of(model), **EXAMPLES}
        raise SettingsInvalid([problem_line(error, examples) for error in exc.errors()]) from None
    if settings.approval_tools is not None:
        # The tools' registry (the model's client with it) is read only when the setting
        # names tools to check: a command that only reads the settings starts faster.
        from bot.tools import REGISTRY, approval_tools

        try:
            approval_tools(settings.approval_tools, REGISTRY)
        except ValueError as exc:
            raw = os.environ.get("BRAINBOT_APPROVAL_TOOLS", ",".join(settings.approval_tools))
            raise SettingsInvalid([_line("BRAINBOT_APPROVAL_TOOLS", raw, str(exc))]) from None
    if settings.imap_url:
        try:
            mailbox_url(settings.imap_url)
        except BadMailboxUrl as exc:
            line = _line("BRAINBOT_IMAP_URL", settings.imap_url, str(exc))
            raise SettingsInvalid([line]) from None
    if settings.imap_ca_file and not os.path.isfile(settings.imap_ca_file):
        line = _line("BRAINBOT_IMAP_CA_FILE", settings.imap_ca_file, "is not a file")
        raise SettingsInvalid([line + " (the CA certificate the IMAP server's is signed by)"])
    return settings


def examples_of(model: type[Settings]) -> dict[str, str]:
    """The examples the settings' fields give, by variable."""
    return {
        field.alias: str(field.examples[0])
        for field in model.model_fields.values()
        if field.alias and field.examples
    }


def problem_line(error: Any, examples: Mapping[str, str] = EXAMPLES) -> str:
    """One pydantic error as `NAME='value' is not …; e.g. …`."""
    name = str(error["loc"][0]) if error["loc"] else "the settings"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    if not isinstance(value, str):
        value = os.environ.get(name, value)
    return _line(name, value, message, examples)


def _line(name: str, value: object, message: str, examples: Mapping[str, str] = EXAMPLES) -> str:
    if message.startswith(name) and isinstance(value, str):  # the validator named it
        line = f"{name}={value!r}{message[len(name) :]}"
    elif message.startswith(SECRET_PREFIX):  # one of BRAINBOT_SECRET_<NAME>_VAULTS
        line = message
    elif isinstance(value, str) and message.startswith(repr(value.strip())):
        line = f"{name}={message}"
    elif isinstance(value, str):
        line = f"{name}={value!r}{' ' if message.startswith('is ') else ': '}{message}"
    else:
        line = f"{name}: {message}"
    example = examples.get(name)
    if example is not None and "e.g." not in line and "such as" not in line:
        line += f"; e.g. {example}"
    from bot.logs import redact  # with the vaults' secrets: read only for a bad value

    return redact(line, _credentials(value))


def _credentials(value: object) -> list[str]:
    """The password (or token-as-user) a URL value carries: never printed."""
    if not isinstance(value, str) or "://" not in value:
        return []
    try:
        url = urlsplit(value)
        return [part for part in (url.password, url.username) if part]
    except ValueError:
        return []
