"""A new platform is its folder and one registration line: a minimal platform made here
(Echo) and registered beside Slack and Telegram is read with the settings (and a bad
value of its is one line), started by `brainbot run`'s wiring (its message is filed
and answered), probed and listed by doctor, named in the startup log and the claim
instructions, and its secret never shown. The composition refuses a platform whose
setting another already has."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import Field, SecretStr, field_validator

from adapters.base import Adapter, SentRef
from adapters.platform import Finding, Host, MenuCommand, PlatformSettings
from app.commands.doctor import diagnose, render
from app.commands.run import run
from app.platforms import PLATFORMS, how_to_claim, settings_class
from app.settings_check import SettingsInvalid, load_settings
from bot.events import Conversation, EventHandler, InboundMessage, MayUse, Reply, Sender
from bot.logs import secrets_of
from tests.bot.helpers import notes

TOKEN = "echo-token-not-for-anyone"


class EchoSettings(PlatformSettings):
    echo_token: SecretStr | None = Field(None, alias="ECHO_TOKEN")
    echo_room: str = Field("lobby", alias="ECHO_ROOM", examples=["lobby"])

    @field_validator("echo_room")
    @classmethod
    def _echo_room_name(cls, value: str) -> str:
        if not value.isalpha():
            raise ValueError("is not a room name (letters only)")
        return value


class EchoAdapter:
    """Says one thing once started, keeps what it is told, then ends by itself."""

    platform = "echo"

    def __init__(self, room: str) -> None:
        self.conversation = Conversation("echo", room)
        self.told: list[str] = []
        self.stopped = False
        self._closed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None:
        self._task = asyncio.create_task(self._say(on_event))

    async def _say(self, on_event: EventHandler) -> None:
        said = InboundMessage(
            "e1",
            self.conversation,
            Sender("echo", "ada", "Ada"),
            "idea: a platform in one folder and one line",
            datetime.now(UTC),
        )
        for reply in await on_event(said):
            await self.send(self.conversation, reply)
        self._closed.set()

    async def send(self, conversation: Conversation, reply: Reply) -> SentRef:
        self.told.append(reply.text)
        return SentRef(conversation, (str(len(self.told)),))

    async def edit(self, ref: SentRef, reply: Reply) -> None:
        self.told.append(reply.text)

    async def stop(self) -> None:
        self.stopped = True

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def end(self) -> None:
        self._closed.set()


class Echo:
    """The whole contract of a platform, as small as it gets."""

    name = "echo"
    title = "Echo"
    settings = EchoSettings
    claim = "`hello {code}`"

    def __init__(self) -> None:
        self.built: list[EchoAdapter] = []

    def configured(self, settings: EchoSettings) -> bool:
        return settings.echo_token is not None

    def describe(self, settings: EchoSettings) -> str | None:
        return f"Echo (room {settings.echo_room})"

    def problems(self, settings: EchoSettings) -> list[Finding]:
        return []

    def build(self, settings: EchoSettings, host: Host) -> Adapter:
        adapter = EchoAdapter(settings.echo_room)
        self.built.append(adapter)
        return adapter

    async def probe(self, settings: EchoSettings) -> list[Finding]:
        assert settings.echo_token is not None
        return [Finding("ok", "echo", f"room {settings.echo_room} answers {TOKEN}")]

    def menu(self) -> Sequence[MenuCommand]:
        return ()


@pytest.fixture
def echo() -> Echo:
    return Echo()


def _settings(tmp_path: Path, database_url: str, platforms: tuple[object, ...]) -> object:
    return settings_class(platforms)(  # type: ignore[arg-type]
        _env_file=None,
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        DATABASE_URL=database_url,
        BRAINBOT_EMBEDDINGS="none",
        BRAINBOT_HTTP_PORT=0,
        BRAINBOT_ALLOWED_USERS="echo:*",
        ECHO_TOKEN=TOKEN,
        ECHO_ROOM="garden",
    )


async def test_a_registered_platform_is_started_by_run_and_its_message_filed(
    tmp_path: Path, database_url: str, echo: Echo, caplog: pytest.LogCaptureFixture
) -> None:
    platforms = (*PLATFORMS, echo)
    settings = _settings(tmp_path, database_url, platforms)
    with caplog.at_level(logging.INFO, "app.serve"):
        assert await run(settings, platforms) == 0  # type: ignore[arg-type]
    (adapter,) = echo.built
    vault = tmp_path / "data" / "vault"
    assert notes(vault) == ["ideas/a-platform-in-one-folder-and-one-line.md"]
    assert adapter.told == ["Saved to ideas/a-platform-in-one-folder-and-one-line.md (ideas)."]
    assert adapter.stopped
    assert any(m.startswith("brainbot is ready: echo, API, MCP; http://") for m in caplog.messages)


async def test_doctor_lists_and_probes_a_registered_platform_and_hides_its_secret(
    tmp_path: Path, database_url: str, echo: Echo
) -> None:
    platforms = (*PLATFORMS, echo)
    settings = _settings(tmp_path, database_url, platforms)
    findings = await diagnose(settings, platforms)  # type: ignore[arg-type]
    configuration = findings[0]
    assert configuration.detail.startswith("Echo (room garden); ")
    assert Finding("ok", "echo", f"room garden answers {TOKEN}") in findings
    report = render(findings, secrets_of(settings))  # type: ignore[arg-type]
    assert "ok       echo: room garden answers [redacted]" in report
    assert TOKEN not in report


def test_its_settings_are_read_and_checked_with_the_rest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, echo: Echo
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of this checkout
    platforms = (*PLATFORMS, echo)
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)
    settings = load_settings(platforms)
    assert isinstance(settings, EchoSettings) and settings.echo_room == "lobby"
    monkeypatch.setenv("ECHO_ROOM", "room 101")
    with pytest.raises(SettingsInvalid) as raised:
        load_settings(platforms)
    assert raised.value.lines == [
        "ECHO_ROOM='room 101' is not a room name (letters only); e.g. lobby"
    ]
    # Without the line in the registry, its variables are not brainbot's.
    assert "ECHO_TOKEN" not in {f.alias for f in type(load_settings()).model_fields.values()}


def test_the_claim_instructions_name_each_platform_s_own_way(echo: Echo) -> None:
    assert how_to_claim("K3Y", (*PLATFORMS, echo)) == (
        "send `/start K3Y` to the bot (in Slack: `claim K3Y` in a DM; in Echo: `hello K3Y`)"
    )


def test_a_platform_whose_setting_is_taken_is_refused() -> None:
    class Squatter(Echo):
        title = "Squatter"

    class SquattingSettings(PlatformSettings):
        token: str | None = Field(None, alias="SLACK_BOT_TOKEN")

    squatter = Squatter()
    squatter.settings = SquattingSettings  # type: ignore[assignment]
    with pytest.raises(ValueError, match="Squatter's setting SLACK_BOT_TOKEN is taken"):
        settings_class((*PLATFORMS, squatter))  # type: ignore[arg-type]


def test_a_platform_whose_validator_name_is_taken_is_refused() -> None:
    """In one composed class a validator of the same name replaces the other, so a
    platform's check (or bot's OPENAI_BASE_URL check) would silently stop: refused."""

    class Shadowing(Echo):
        title = "Shadowing"

    class ShadowingSettings(PlatformSettings):
        shadow_url: str = Field("https://shadow.example", alias="SHADOW_URL")

        @field_validator("shadow_url")
        @classmethod
        def _web_address(cls, value: str) -> str:
            return value

    shadowing = Shadowing()
    shadowing.settings = ShadowingSettings  # type: ignore[assignment]
    with pytest.raises(ValueError, match="Shadowing's settings validator _web_address is taken"):
        settings_class((*PLATFORMS, shadowing))  # type: ignore[arg-type]
