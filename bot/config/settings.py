"""Settings from the environment (and an optional `.env`), validated once at start (the
variables read whole, and the order of the sources: bot.config.settings_sources)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.config.settings_chat import (
    CHANGE_KINDS,
    AccessSettings,
    ScheduleSettings,
    ServerSettings,
)
from bot.config.settings_model import ModelSettings
from bot.config.settings_notes import CaptureSettings, VaultSettings
from bot.config.settings_sources import (
    DIRECT_CHANGES_ENV,
    SECRET_PREFIX,
    SECRET_VAULTS_SUFFIX,
    read_in_order,
)
from storage.text.dates import time_of_day, zone_named
from storage.vault import INBOX


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


_CATEGORY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_USER_KEY = re.compile(r"^[a-z]+:[^\s:]+(:\*)?$")
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:\d{1,5})?$")
_ORIGIN = re.compile(r"^https?://(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$")
_DEFAULT_PORT = re.compile(r"^(https://[^/]+):443$|^(http://[^/]+):80$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_VAULT_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")  # storage.vaults.folder_name's shape


def web_address(value: str | None) -> str | None:
    """`value` when it is an http(s) URL with a host (or None); else ValueError. For a
    validator of every setting holding a web address (a platform's API too)."""
    if value is not None:
        url = urlsplit(value)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError("is not an http(s) URL")
    return value


class Settings(
    VaultSettings,
    CaptureSettings,
    ModelSettings,
    AccessSettings,
    ScheduleSettings,
    ServerSettings,
):
    """Every setting of brainbot's own, in its groups (each field's description is its
    meaning in the README's configuration table); each platform adds its own (adapters.platform),
    composed with these by app.platforms."""

    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return read_in_order(
            settings_cls, init_settings, env_settings, dotenv_settings, file_secret_settings
        )

    @field_validator(
        "categories",
        "allowed_users",
        "approval_tools",
        "direct_changes",
        "tool_hosts",
        "fetch_trusted_hosts",
        "api_cors_origins",
        mode="before",
    )
    @classmethod
    def _csv(cls, value: object) -> object:
        return _split_csv(value)

    @field_validator("digest_time", "reminder_time", mode="before")
    @classmethod
    def _time_of_day(cls, value: object) -> object:
        """HH:MM, read once here: a bad value stops the start with the setting's name."""
        return time_of_day(value) if isinstance(value, str) else value

    @field_validator("timezone", mode="before")
    @classmethod
    def _zone(cls, value: object) -> object:
        return zone_named(value) if isinstance(value, str) else value

    @field_validator("direct_changes", mode="after")
    @classmethod
    def _known_change_kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        kinds = tuple(dict.fromkeys(kind.lower() for kind in value))
        if kinds == ("none",):
            return ()
        unknown = [kind for kind in kinds if kind not in CHANGE_KINDS]
        if unknown:
            raise ValueError(
                f"{DIRECT_CHANGES_ENV} names unknown kinds of change {unknown}; valid: "
                f"{', '.join(CHANGE_KINDS)} (empty or none: every change waits for Approve)"
            )
        return kinds

    @field_validator("team_vaults", mode="before")
    @classmethod
    def _team_vaults(cls, value: object) -> object:
        """`slack:C0123=team-ops,telegram:-100123=family`: a chat → the team vault's name."""
        if not isinstance(value, str):
            return value
        teams: dict[str, str] = {}
        for part in value.split(","):
            if not part.strip():
                continue
            chat, sep, name = part.strip().rpartition("=")
            platform, colon, chat_id = chat.partition(":")
            if not sep or not colon or not chat_id or not name.strip():
                raise ValueError(
                    f"BRAINBOT_TEAM_VAULTS: {part.strip()!r} is not PLATFORM:CHAT=NAME, "
                    "e.g. slack:C0123=team-ops"
                )
            teams[f"{platform.strip().lower()}:{chat_id.strip()}"] = name.strip()
        return teams

    @field_validator("secret_vaults", mode="before")
    @classmethod
    def _secret_vaults(cls, value: object) -> object:
        """`ops,ada-2` per secret: vault names, checked for their shape (whether such a
        vault exists is `brainbot doctor`'s to say: one may not have been made yet)."""
        if not isinstance(value, dict):
            return value
        allowed: dict[str, tuple[str, ...]] = {}
        for secret, names in value.items():
            parts = _split_csv(names) if isinstance(names, str) else names
            if not isinstance(parts, (list, tuple)):
                return value  # pydantic names the type that is wrong
            vaults = tuple(str(part).strip().lower() for part in parts)
            bad = [name for name in vaults if not _VAULT_NAME.match(name)]
            if bad:
                raise ValueError(
                    f"{SECRET_PREFIX}{secret}{SECRET_VAULTS_SUFFIX}: {bad} are not vault names; "
                    "write the names `brainbot vaults` lists (the owner's is `vault`), "
                    "comma-separated, e.g. vault,ops"
                )
            allowed[str(secret)] = vaults
        return allowed

    @field_validator("categories", mode="after")
    @classmethod
    def _category_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [name for name in value if not _CATEGORY.match(name)]
        if bad:
            raise ValueError(f"{bad} are not folder names (letters, digits, - and _)")
        return value

    @field_validator("allowed_users", mode="after")
    @classmethod
    def _user_keys(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [key for key in value if not _USER_KEY.match(key)]
        if bad:
            raise ValueError(f"{bad} are not PLATFORM:ID (or PLATFORM:*)")
        return value

    @field_validator("tool_hosts", mode="after")
    @classmethod
    def _hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [host for host in value if not _HOST.match(host)]
        if bad:
            raise ValueError(f"{bad} are not host names (HOST or HOST:PORT, no scheme or path)")
        return value

    @field_validator("fetch_trusted_hosts", mode="after")
    @classmethod
    def _host_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [host for host in value if not _HOST.match(host) or ":" in host]
        if bad:
            raise ValueError(f"{bad} are not host names (no scheme, port or path)")
        return value

    @field_validator("api_cors_origins", mode="after")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        """Origins as a browser sends them (lower case, no default port); never `*`."""
        origins = tuple(_DEFAULT_PORT.sub(r"\1\2", o.rstrip("/").lower()) for o in value)
        if bad := [origin for origin in origins if not _ORIGIN.match(origin)]:
            raise ValueError(f"{bad} are not origins: scheme://host[:port] each (no path, no *)")
        return origins

    @field_validator("openai_base_url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        return web_address(value)

    @field_validator("database_url")
    @classmethod
    def _database_address(cls, value: str | None) -> str | None:
        if value is not None:
            url = urlsplit(value)
            if url.scheme.partition("+")[0] not in ("postgresql", "postgres"):
                raise ValueError("is not a postgresql:// URL")
        return value

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        if value.upper() not in _LOG_LEVELS:
            raise ValueError(f"is not a log level ({', '.join(_LOG_LEVELS)})")
        return value

    @model_validator(mode="after")
    def _inbox_is_a_category(self) -> Settings:
        if INBOX not in self.categories:
            self.categories = (*self.categories, INBOX)
        return self

    @property
    def vault_dir(self) -> Path:
        return self.vault_dir_setting or self.data_dir / "vault"

    @property
    def llm_enabled(self) -> bool:
        return bool(self.openai_api_key or self.openai_base_url)

    @property
    def embeddings(self) -> Literal["openai", "local", "none"]:
        if self.embeddings_setting is not None:
            return self.embeddings_setting
        return "openai" if self.llm_enabled else "none"


# The groups of settings, in the order the README's configuration table lists them
# (app.settings_table): Settings' own bases, so a group added there is listed.
GROUPS: tuple[type[BaseSettings], ...] = Settings.__bases__
