"""Settings of who may do what, of when digests and reminders go out, and of the HTTP
server, email in and the log: three groups of bot.config.Settings."""

from __future__ import annotations

from datetime import time
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import Field
from pydantic_settings import BaseSettings, NoDecode

from bot.config.settings_sources import DIRECT_CHANGES_ENV, SECRET_VAULTS_SETTING

# Changes that add to a note and overwrite nothing (see bot.tools.change_kinds), which
# BRAINBOT_DIRECT_CHANGES may let run at once with an Undo button instead of Approve.
CHANGE_KINDS = ("append", "tag", "tick", "fill")
DIRECT_CHANGES = ("append", "tag", "tick")


class AccessSettings(BaseSettings):
    """Who may do what

    Who may use the bot, which changes wait for Approve, the limits on one message, and
    what a vault's own tools may reach."""

    allowed_users: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        alias="BRAINBOT_ALLOWED_USERS",
        description=(
            "who may use the bot, e.g. `slack:U123,telegram:42`; `telegram:*` allows a whole "
            "platform, `slack:*` everyone in the bot's own Slack workspace (guests from other "
            "workspaces need `slack:T0OTHER:*` or their own `slack:U…`). The console is always "
            "allowed"
        ),
        json_schema_extra={
            "shown_default": (
                "empty: nobody until the owner claims the bot (see [Who may use it](access.md))"
            )
        },
    )
    confidence_threshold: float = Field(
        0.6,
        ge=0,
        le=1,
        alias="BRAINBOT_CONFIDENCE_THRESHOLD",
        description="below it a capture goes to `inbox/` with category buttons",
    )
    approval_ttl_seconds: float = Field(
        24 * 3600,
        gt=0,
        alias="BRAINBOT_APPROVAL_TTL",
        description="seconds an approval stays valid",
    )
    # Unset: every tool that can wait for Approve. Checked against the tools' own
    # flags (bot.tools.runner.approval_tools) when the settings are loaded.
    approval_tools: Annotated[tuple[str, ...] | None, NoDecode] = Field(
        None,
        alias="BRAINBOT_APPROVAL_TOOLS",
        description=(
            "which tools wait for Approve (`update`, `tick`, `move`, `rename`, `delete` work too; "
            "`tick_tasks` follows `update_entry`); an unknown name stops the start and `brainbot "
            "doctor` names it"
        ),
        json_schema_extra={
            "shown_default": "every tool that can wait: "
            "`update_entry,tick_tasks,move_entry,rename_entry,delete_entry,undo,search_replace`"
        },
    )
    direct_changes: Annotated[tuple[str, ...], NoDecode] = Field(
        DIRECT_CHANGES,
        alias=DIRECT_CHANGES_ENV,
        description=(
            "small changes that run at once with an Undo button instead of waiting for Approve: "
            "`append` (text added at the end), `tag` (tags added, none removed), `tick` (`- [ ]` "
            "tasks ticked or unticked), `fill` (a missing or empty field set). A change made of "
            "several parts runs at once only if every part is listed; empty (or `none`): every "
            "change waits for Approve"
        ),
    )
    max_tool_calls: int = Field(
        20,
        ge=1,
        alias="BRAINBOT_MAX_TOOL_CALLS",
        description=(
            "actions (tool calls) one message may cause, however many the model asks for; the rest"
            " are not done and the reply says so"
        ),
    )
    rate_limit_per_minute: int = Field(
        30,
        ge=0,
        alias="BRAINBOT_RATE_LIMIT",
        description=(
            "messages per minute one person may send in a chat (the console, typed or piped, is "
            'never limited); more get "send it again" and are not saved; `0` turns it off'
        ),
    )
    max_attachment_bytes: int = Field(
        20_000_000,
        gt=0,
        alias="BRAINBOT_MAX_ATTACHMENT_BYTES",
        description=(
            "largest file kept from a message (voice note, photo, document); a larger one is not "
            "even downloaded, and the sender is told (Slack and Telegram hand bots at most 20 MB "
            "anyway)"
        ),
    )
    max_message_chars: int = Field(
        20_000,
        gt=0,
        alias="BRAINBOT_MAX_MESSAGE_CHARS",
        description="longer messages are refused, nothing saved",
    )

    tool_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        alias="BRAINBOT_TOOL_HOSTS",
        description=(
            "hosts a vault's own HTTP tools may call, e.g. "
            "`api.weather.example,intranet.local:8443` (an entry without a port allows any port); "
            "a tool for another host is skipped and `brainbot doctor` names it (see [Adding your "
            "own tools](tools.md))"
        ),
        json_schema_extra={"shown_default": "unset: no host"},
    )
    # A secret's name → the vaults (by name, as `brainbot vaults` lists them) whose tools
    # file may use it; a secret not named here: the owner's vault only.
    secret_vaults: Annotated[dict[str, tuple[str, ...]], NoDecode] = Field(
        {},
        alias=SECRET_VAULTS_SETTING,
        description=(
            "the vaults whose tools file may use `{secret:NAME}`, by the names `brainbot vaults` "
            "lists (the owner's is `vault`, a team's its name, a person's e.g. `ada-2`), e.g. "
            "`vault,ops` (for `{secret:NAME}` the variable is `BRAINBOT_SECRET_NAME_VAULTS`); "
            "empty: none. A tool using a secret its vault may not is skipped and `brainbot doctor`"
            " reports it as a problem; a name that is no vault (nor a team vault of "
            "`BRAINBOT_TEAM_VAULTS`) is warned about at start and by `brainbot doctor`"
        ),
        json_schema_extra={"shown_default": "unset: the owner's vault only"},
    )


class ScheduleSettings(BaseSettings):
    """Digests and reminders

    When they go out, in which time zone, and how late they may still be sent."""

    digest_time: time = Field(
        time(8, 0),
        alias="BRAINBOT_DIGEST_TIME",
        description=(
            "default local time of the daily digest, as HH:MM (24 h); anything else (`25:99`, "
            "`8am`) stops the start with the setting's name"
        ),
    )
    timezone: ZoneInfo = Field(
        ZoneInfo("UTC"),
        alias="BRAINBOT_TIMEZONE",
        description=(
            "default time zone, an IANA name such as `Europe/Berlin` (Slack users get their own); "
            "a name this machine does not know stops the start"
        ),
    )
    digest_grace_seconds: float = Field(
        2 * 3600,
        ge=0,
        alias="BRAINBOT_DIGEST_GRACE",
        description=(
            "seconds after which a missed digest is skipped rather than sent late; a failed send "
            "is retried within it"
        ),
    )
    reminder_time: time = Field(
        time(9, 0),
        alias="BRAINBOT_REMINDER_TIME",
        description=(
            'local time of a reminder given a day but no time ("remind me tomorrow"), as HH:MM (24'
            " h)"
        ),
    )
    reminder_grace_seconds: float = Field(
        6 * 3600,
        ge=0,
        alias="BRAINBOT_REMINDER_GRACE",
        description=(
            "seconds after which a missed reminder is skipped rather than sent late; a failed send"
            " is retried within it"
        ),
    )


class ServerSettings(BaseSettings):
    """The HTTP server, email in and the log"""

    http_host: str = Field(
        "127.0.0.1",
        min_length=1,
        alias="BRAINBOT_HTTP_HOST",
        description=(
            "address of the HTTP server (health, metrics, Slack HTTP mode, Telegram webhook)"
        ),
    )
    http_port: int = Field(8080, ge=0, le=65535, alias="BRAINBOT_HTTP_PORT", description="its port")
    # The sites whose pages may call the capture API from a browser (app.cors).
    api_cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        alias="BRAINBOT_API_CORS_ORIGINS",
        description=(
            "the sites whose pages may call the capture API from a browser (the bookmarklet), "
            "comma-separated origins `scheme://host[:port]`, each matched exactly; no `*`"
        ),
        json_schema_extra={"shown_default": "unset (no page may)"},
    )

    # Email in (bot.mail): the IMAP folder whose mail from verified addresses is filed
    # when the server imap_authserv_id names vouches for it (else it does not start).
    imap_url: str | None = Field(
        None,
        alias="BRAINBOT_IMAP_URL",
        description=(
            "email in: the mailbox whose mail from verified addresses becomes notes, "
            "`imaps://USER:PASSWORD@HOST[:PORT]/FOLDER` (TLS, port 993) or `imap://…` (STARTTLS "
            "required, port 143); `@`, `:` or `/` in the user or password percent-encoded (`%40`, "
            "`%3A`, `%2F`); the folder defaults to `INBOX`"
        ),
    )
    imap_ca_file: str | None = Field(
        None,
        alias="BRAINBOT_IMAP_CA_FILE",
        description=(
            "a PEM file of the CA that signed the IMAP server's certificate, for a server with a "
            "certificate of your own CA; unset, the system's CAs decide (no way to skip the check)"
        ),
    )
    imap_poll_seconds: float = Field(
        60.0,
        gt=0,
        alias="BRAINBOT_IMAP_POLL_SECONDS",
        description=(
            "how often the mailbox is searched for new mail when the server has no IDLE (with IDLE"
            " mail arrives at once; this is then only the safety net)"
        ),
    )
    imap_trust_unauthenticated: bool = Field(
        False,
        alias="BRAINBOT_IMAP_TRUST_UNAUTHENTICATED",
        description=(
            "`true` files a verified address's mail even when the receiving server's "
            "`Authentication-Results` show no DKIM or SPF pass: only for a server that adds no "
            "such header, as anyone can write any From line; with it, email in starts without "
            "`BRAINBOT_IMAP_AUTHSERV_ID`"
        ),
    )
    imap_authserv_id: str | None = Field(
        None,
        alias="BRAINBOT_IMAP_AUTHSERV_ID",
        description=(
            "the receiving server's name in the `Authentication-Results` header it adds (the "
            "header's first word, e.g. `mx.example.org`; `brainbot doctor` shows the names in the "
            "mailbox's newest mails): only that server's header counts; `topmost` makes the "
            "topmost header count whoever wrote it, for a server that names itself in none "
            "(Microsoft 365)"
        ),
        json_schema_extra={"shown_default": "unset (email in does not start)"},
    )
    log_level: str = Field("INFO", alias="BRAINBOT_LOG_LEVEL", description="log level")
