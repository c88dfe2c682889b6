"""Settings from the environment (and an optional `.env`), validated once at start (the
variables read whole, and the order of the sources: bot.config.settings_sources)."""

from __future__ import annotations

import re
from datetime import time
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pydantic import Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bot.config.settings_sources import (
    DIRECT_CHANGES_ENV,
    SECRET_PREFIX,
    SECRET_VAULTS_SETTING,
    SECRET_VAULTS_SUFFIX,
    read_in_order,
)
from notetext.dates import time_of_day, zone_named
from storage.vault import DEFAULT_CATEGORIES, INBOX


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


# Changes that add to a note and overwrite nothing (see bot.tools.change_kinds), which
# BRAINBOT_DIRECT_CHANGES may let run at once with an Undo button instead of Approve.
CHANGE_KINDS = ("append", "tag", "tick", "fill")
DIRECT_CHANGES = ("append", "tag", "tick")


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


class Settings(BaseSettings):
    """Every setting of brainbot's own; each platform adds its own (adapters.platform),
    composed with these by app.platforms. The README's configuration table lists both."""

    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True
    )

    data_dir: Path = Field(Path("data"), alias="BRAINBOT_DATA_DIR")
    vault_dir_setting: Path | None = Field(None, alias="BRAINBOT_VAULT_DIR")
    database_url: str | None = Field(None, alias="DATABASE_URL")
    categories: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_CATEGORIES, alias="BRAINBOT_CATEGORIES"
    )
    max_note_bytes: int = Field(1_000_000, gt=0, alias="BRAINBOT_MAX_NOTE_BYTES")

    embeddings_setting: Literal["openai", "local", "none"] | None = Field(
        None, alias="BRAINBOT_EMBEDDINGS"
    )
    embedding_model: str = Field("text-embedding-3-small", alias="BRAINBOT_EMBEDDING_MODEL")
    embedding_dimensions: int | None = Field(None, gt=0, alias="BRAINBOT_EMBEDDING_DIMENSIONS")

    openai_api_key: str | None = Field(None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(None, alias="OPENAI_BASE_URL")
    llm_model: str = Field("gpt-4o-mini", alias="BRAINBOT_LLM_MODEL")
    llm_timeout: float = Field(180.0, gt=0, alias="BRAINBOT_LLM_TIMEOUT")
    llm_first_token_timeout: float = Field(60.0, gt=0, alias="BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT")
    llm_retries: int = Field(2, ge=0, alias="BRAINBOT_LLM_RETRIES")
    llm_max_rounds: int = Field(6, ge=1, alias="BRAINBOT_LLM_MAX_ROUNDS")
    llm_max_tokens: int = Field(1000, ge=16, alias="BRAINBOT_LLM_MAX_TOKENS")
    llm_stream: bool = Field(True, alias="BRAINBOT_LLM_STREAM")
    llm_tools: Literal["all", "routed"] = Field("all", alias="BRAINBOT_LLM_TOOLS")
    transcribe_model: str = Field("whisper-1", alias="BRAINBOT_TRANSCRIBE_MODEL")

    allowed_users: Annotated[tuple[str, ...], NoDecode] = Field((), alias="BRAINBOT_ALLOWED_USERS")
    confidence_threshold: float = Field(0.6, ge=0, le=1, alias="BRAINBOT_CONFIDENCE_THRESHOLD")
    approval_ttl_seconds: float = Field(24 * 3600, gt=0, alias="BRAINBOT_APPROVAL_TTL")
    # Unset: every tool that can wait for Approve. Checked against the tools' own
    # flags (bot.tools.runner.approval_tools) when the settings are loaded.
    approval_tools: Annotated[tuple[str, ...] | None, NoDecode] = Field(
        None, alias="BRAINBOT_APPROVAL_TOOLS"
    )
    direct_changes: Annotated[tuple[str, ...], NoDecode] = Field(
        DIRECT_CHANGES, alias=DIRECT_CHANGES_ENV
    )
    max_tool_calls: int = Field(20, ge=1, alias="BRAINBOT_MAX_TOOL_CALLS")
    rate_limit_per_minute: int = Field(30, ge=0, alias="BRAINBOT_RATE_LIMIT")
    max_attachment_bytes: int = Field(20_000_000, gt=0, alias="BRAINBOT_MAX_ATTACHMENT_BYTES")
    max_message_chars: int = Field(20_000, gt=0, alias="BRAINBOT_MAX_MESSAGE_CHARS")
    # What a message shares is read after its note is saved (bot.enrich): a link's page,
    # the text in a photo, a document's text.
    fetch_links: bool = Field(True, alias="BRAINBOT_FETCH")
    fetch_max_bytes: int = Field(5_000_000, gt=0, alias="BRAINBOT_FETCH_MAX_BYTES")
    fetch_timeout: float = Field(10.0, gt=0, le=120, alias="BRAINBOT_FETCH_TIMEOUT")
    # Redirects followed by one request: a shared link's page, a vault's HTTP tool.
    max_redirects: int = Field(5, ge=0, le=20, alias="BRAINBOT_MAX_REDIRECTS")
    fetch_allow_private: bool = Field(False, alias="BRAINBOT_FETCH_ALLOW_PRIVATE")
    fetch_trusted_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (), alias="BRAINBOT_FETCH_TRUSTED_HOSTS"
    )
    read_files: bool = Field(True, alias="BRAINBOT_READ_FILES")
    vision_model: str | None = Field(None, alias="BRAINBOT_VISION_MODEL")
    # Files and pages are parsed in reader processes (bot.readers.pool): each holds at
    # most this much address space, and each item is given this long before it is killed.
    read_memory_mb: int = Field(1024, ge=512, le=65536, alias="BRAINBOT_READ_MEMORY_MB")
    read_timeout: float = Field(30.0, gt=0, le=600, alias="BRAINBOT_READ_TIMEOUT")
    enrich_timeout: float = Field(120.0, gt=0, alias="BRAINBOT_ENRICH_TIMEOUT")
    # After a capture, its related notes are suggested with a Link button (bot.connect);
    # with auto_link the links are written at once, with Undo.
    auto_link: bool = Field(False, alias="BRAINBOT_AUTO_LINK")
    # `auto`: a capture adds a line to today's daily note when the vault has Obsidian's
    # daily-notes settings; `off`; or the folder of the daily notes (storage.vault.daily).
    daily_note: str = Field(
        "auto", min_length=1, pattern=r"^[^/.][^\\:*?\"<>|]*$", alias="BRAINBOT_DAILY_NOTE"
    )
    history_token_budget: int = Field(3_000, ge=0, alias="BRAINBOT_HISTORY_TOKENS")

    digest_time: time = Field(time(8, 0), alias="BRAINBOT_DIGEST_TIME")
    timezone: ZoneInfo = Field(ZoneInfo("UTC"), alias="BRAINBOT_TIMEZONE")
    digest_grace_seconds: float = Field(2 * 3600, ge=0, alias="BRAINBOT_DIGEST_GRACE")
    reminder_time: time = Field(time(9, 0), alias="BRAINBOT_REMINDER_TIME")
    reminder_grace_seconds: float = Field(6 * 3600, ge=0, alias="BRAINBOT_REMINDER_GRACE")

    http_host: str = Field("127.0.0.1", min_length=1, alias="BRAINBOT_HTTP_HOST")
    http_port: int = Field(8080, ge=0, le=65535, alias="BRAINBOT_HTTP_PORT")
    # The sites whose pages may call the capture API from a browser (app.cors).
    api_cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (), alias="BRAINBOT_API_CORS_ORIGINS"
    )

    tool_hosts: Annotated[tuple[str, ...], NoDecode] = Field((), alias="BRAINBOT_TOOL_HOSTS")
    # A secret's name → the vaults (by name, as `brainbot vaults` lists them) whose tools
    # file may use it; a secret not named here: the owner's vault only.
    secret_vaults: Annotated[dict[str, tuple[str, ...]], NoDecode] = Field(
        {}, alias=SECRET_VAULTS_SETTING
    )

    team_vaults: Annotated[dict[str, str], NoDecode] = Field({}, alias="BRAINBOT_TEAM_VAULTS")
    # A team membership older than this is checked against the chat before it is used.
    team_check_hours: float = Field(24.0, gt=0, le=24 * 7, alias="BRAINBOT_TEAM_CHECK_HOURS")

    sync_interval_seconds: float = Field(30.0, ge=0, alias="BRAINBOT_SYNC_INTERVAL")
    watch_vaults: bool = Field(True, alias="BRAINBOT_WATCH")
    git_remote: str | None = Field(None, alias="BRAINBOT_GIT_REMOTE")
    # Email in (bot.mail): the IMAP folder whose mail from verified addresses is filed
    # when the server imap_authserv_id names vouches for it (else it does not start).
    imap_url: str | None = Field(None, alias="BRAINBOT_IMAP_URL")
    imap_ca_file: str | None = Field(None, alias="BRAINBOT_IMAP_CA_FILE")
    imap_poll_seconds: float = Field(60.0, gt=0, alias="BRAINBOT_IMAP_POLL_SECONDS")
    imap_trust_unauthenticated: bool = Field(False, alias="BRAINBOT_IMAP_TRUST_UNAUTHENTICATED")
    imap_authserv_id: str | None = Field(None, alias="BRAINBOT_IMAP_AUTHSERV_ID")
    log_level: str = Field("INFO", alias="BRAINBOT_LOG_LEVEL")

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
