"""Settings of where the notes live and of what a capture reads and adds: two groups of
bot.config.Settings (a group's docstring titles its part of the README's configuration table)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field
from pydantic_settings import BaseSettings, NoDecode

from storage.vault import DEFAULT_CATEGORIES


class VaultSettings(BaseSettings):
    """Where the notes live

    The data folder, the database, the vaults and their categories, team vaults, syncing
    and backups."""

    data_dir: Path = Field(
        Path("data"),
        alias="BRAINBOT_DATA_DIR",
        description="where the vault and the embedded database live",
        json_schema_extra={"shown_default": "`./data`"},
    )
    vault_dir_setting: Path | None = Field(
        None,
        alias="BRAINBOT_VAULT_DIR",
        description=(
            "the owner's vault (the first person's); everyone else's is `<data>/vaults/<name>/`"
        ),
        json_schema_extra={"shown_default": "`<data>/vault`"},
    )
    database_url: str | None = Field(
        None,
        alias="DATABASE_URL",
        description="a Postgres with the `vector` extension, e.g. `postgresql://user:pw@host/brainbot`",
        json_schema_extra={"shown_default": "unset: embedded Postgres under `<data>/pg`"},
    )
    categories: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_CATEGORIES,
        alias="BRAINBOT_CATEGORIES",
        description="the category folders (`inbox` is always added)",
    )
    max_note_bytes: int = Field(
        1_000_000,
        gt=0,
        alias="BRAINBOT_MAX_NOTE_BYTES",
        description=(
            "largest note written or read: a larger file in a vault is skipped (its size is "
            "checked before a byte is read) and `brainbot doctor` names it; a larger file is not "
            "deleted or replaced (a digest, today's daily note) either: the change is refused with"
            " its size"
        ),
    )

    team_vaults: Annotated[dict[str, str], NoDecode] = Field(
        {},
        alias="BRAINBOT_TEAM_VAULTS",
        description=(
            "chats that file into a shared team vault: `PLATFORM:CHAT=NAME,...`, e.g. "
            "`slack:C0123=ops,telegram:-1001234=family` (see [The vault](vault.md))"
        ),
    )
    # A team membership older than this is checked against the chat before it is used.
    team_check_hours: float = Field(
        24.0,
        gt=0,
        le=24 * 7,
        alias="BRAINBOT_TEAM_CHECK_HOURS",
        description=(
            "a team membership not confirmed for this long (a message in the chat confirms it) is "
            "checked with Slack or Telegram before it is used; at most 168"
        ),
    )

    sync_interval_seconds: float = Field(
        30.0,
        ge=0,
        alias="BRAINBOT_SYNC_INTERVAL",
        description=(
            "seconds between looks for notes changed outside the bot (Obsidian, `git pull`); `0` "
            "turns it off"
        ),
    )
    watch_vaults: bool = Field(
        True,
        alias="BRAINBOT_WATCH",
        description=(
            "watch the vault folders, so a note edited by hand (Obsidian, `git pull`) is "
            "searchable within a second; `false` leaves it to the sync above (also the fallback "
            "when the watch cannot start, e.g. too few inotify watches)"
        ),
    )
    git_remote: str | None = Field(
        None,
        alias="BRAINBOT_GIT_REMOTE",
        description=(
            "push the vaults here after changes and pull what devices pushed (see [Sync with your "
            "devices](sync.md)); `{person}` in it becomes each vault's name "
            "(`git@host:brains/{person}.git`), without it only the owner's vault is synced"
        ),
    )
    git_pull_interval_seconds: float = Field(
        60.0,
        ge=0,
        alias="BRAINBOT_GIT_PULL_INTERVAL",
        description=(
            "with `BRAINBOT_GIT_REMOTE`, seconds between looks for what devices pushed (one "
            "`git ls-remote` per vault when nothing is new; then fetch, merge, index, push); `0` "
            "turns it off (`/sync` and `POST /api/v1/sync` still work)"
        ),
    )


class CaptureSettings(BaseSettings):
    """What a capture reads and adds

    A link's page, the text of photos and documents, related notes, the daily note."""

    # What a message shares is read after its note is saved (bot.enrich): a link's page,
    # the text in a photo, a document's text.
    fetch_links: bool = Field(
        True,
        alias="BRAINBOT_FETCH",
        description="read the page behind a link in a saved note (`false`: links are kept as sent)",
    )
    fetch_max_bytes: int = Field(
        5_000_000,
        gt=0,
        alias="BRAINBOT_FETCH_MAX_BYTES",
        description=(
            "largest page or linked PDF read; a larger one is not read and the person is told"
        ),
    )
    fetch_timeout: float = Field(
        10.0,
        gt=0,
        le=120,
        alias="BRAINBOT_FETCH_TIMEOUT",
        description="seconds a page may take, redirects included",
    )
    # Redirects followed by one request: a shared link's page, a vault's HTTP tool.
    max_redirects: int = Field(
        5,
        ge=0,
        le=20,
        alias="BRAINBOT_MAX_REDIRECTS",
        description=(
            "redirects one request follows (a shared link's page, a vault's HTTP tool) before it "
            "gives up"
        ),
    )
    fetch_allow_private: bool = Field(
        False,
        alias="BRAINBOT_FETCH_ALLOW_PRIVATE",
        description=(
            "let links reach private, loopback and link-local addresses (an intranet install); by "
            "default they are refused, checked on the address dialled (after DNS resolution, at "
            "every redirect, however the address is spelled); cloud metadata addresses are refused"
            " either way"
        ),
    )
    fetch_trusted_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        alias="BRAINBOT_FETCH_TRUSTED_HOSTS",
        description=(
            "host names (or addresses) whose links may reach the private network without opening "
            "it to every link, e.g. `wiki.home.example,192.168.1.20`; matched by name as written "
            "(a trailing dot and case do not count), never a metadata address"
        ),
    )
    read_files: bool = Field(
        True,
        alias="BRAINBOT_READ_FILES",
        description=(
            "read the text in photos (OCR on the CPU) and documents (PDF, DOCX, text, Markdown) "
            "into their note"
        ),
    )
    vision_model: str | None = Field(
        None,
        alias="BRAINBOT_VISION_MODEL",
        description=(
            "a vision-capable model on the same endpoint (e.g. `gpt-4o-mini`): adds a one-line "
            "description of each photo"
        ),
    )
    # Files and pages are parsed in reader processes (bot.readers.pool): each holds at
    # most this much address space, and each item is given this long before it is killed.
    read_memory_mb: int = Field(
        1024,
        ge=512,
        le=65536,
        alias="BRAINBOT_READ_MEMORY_MB",
        description=(
            "address space each reader process (PDF, Word, OCR, web pages) may hold, in MiB (512 "
            'at least); a file that needs more is not read and the person is told "too large to '
            'read"'
        ),
    )
    read_timeout: float = Field(
        30.0,
        gt=0,
        le=600,
        alias="BRAINBOT_READ_TIMEOUT",
        description=(
            "seconds one file or page may take to read before its reader is killed and the person "
            "is told (at most 600)"
        ),
    )
    enrich_timeout: float = Field(
        120.0,
        gt=0,
        alias="BRAINBOT_ENRICH_TIMEOUT",
        description=(
            "seconds the reading of one note's links and files may take in all; past it the note "
            "stays as sent and the person is told"
        ),
    )
    # After a capture, its related notes are suggested with a Link button (bot.connect);
    # with auto_link the links are written at once, with Undo.
    auto_link: bool = Field(
        False,
        alias="BRAINBOT_AUTO_LINK",
        description=(
            "after a capture, link the new note to the notes it is most related to at once (a "
            "`Related:` line, with Undo), instead of suggesting them with a Link button"
        ),
    )
    # `auto`: a capture adds a line to today's daily note when the vault has Obsidian's
    # daily-notes settings; `off`; or the folder of the daily notes (storage.vault.daily).
    daily_note: str = Field(
        "auto",
        min_length=1,
        pattern=r"^[^/.][^\\:*?\"<>|]*$",
        alias="BRAINBOT_DAILY_NOTE",
        description=(
            "each capture adds `- 09:41 [[note|Title]]` under `## Captured` in today's daily note "
            "(the person's day and time, created from the template if missing, in the same commit "
            "as the note): `auto` when the vault has Obsidian's daily-notes settings "
            "(`.obsidian/daily-notes.json`: folder, date format, template), `off`, or a folder "
            "name (e.g. `journal`) to keep daily notes named `YYYY-MM-DD` there"
        ),
    )
