"""A platform's contract: all the process knows of a chat platform. Each adapter folder
exports one object that keeps it (`adapters/slack/__init__.py`: `SLACK`), and
app.platforms registers each in one line; `brainbot run`, `doctor`, the settings check
and the command-line senders loop over the registered ones, so a new platform is its
folder and that line.

The object says: the platform's name (its events' `platform`) and how people read it;
its settings (its environment variables, a pydantic-settings model that app composes
into the process's one Settings, so they are read and checked once with the rest);
whether they turn it on and how it will run; what keeps it from starting (for doctor,
and as `ConfigurationError` when it is built); how to build its adapter (its SDK is
imported then, not before); doctor's probe of its API; the commands it lists for
people (Telegram's menu); how a person sends it a claim code when `/start CODE` is not
the way. Team membership, where a platform has it, is its adapter's: it answers
`members_among` (bot.people.ChatMembers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic_settings import BaseSettings, SettingsConfigDict

from adapters.base import Adapter

PROBE_TIMEOUT = 10.0  # seconds a doctor probe waits for an answer


class PlatformSettings(BaseSettings):
    """A platform's own settings, read the way bot.config.Settings is (the environment,
    then `.env`; an empty variable is unset). Mark secrets `SecretStr`: the logs and
    doctor's output never show them."""

    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True
    )


S = TypeVar("S", bound=PlatformSettings)


@dataclass(frozen=True, slots=True)
class Host:
    """What the process lends every adapter it builds."""

    data_dir: Path  # where an adapter may keep files of its own (the console's history)
    max_file_bytes: int  # the largest file a message may bring (BRAINBOT_MAX_ATTACHMENT_BYTES)
    grace: float  # seconds `stop` may wait for the events in progress


@dataclass(frozen=True, slots=True)
class MenuCommand:
    """One command a platform lists for people, with its line."""

    command: str
    description: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of `brainbot doctor`'s report: `level` is ok, note, warning or problem."""

    level: str
    topic: str
    detail: str
    fix: str = ""


class ConfigurationError(Exception):
    """The settings name a platform but not enough to start it (one line, the fix in it)."""


class Platform(Protocol[S]):
    """One chat platform, as the process registers it (see the module doc)."""

    @property
    def name(self) -> str:
        """The `platform` of its events and conversations: "slack"."""
        ...

    @property
    def title(self) -> str:
        """How people read it: "Slack"."""
        ...

    @property
    def settings(self) -> type[S]:
        """Its environment variables."""
        ...

    @property
    def claim(self) -> str | None:
        """How a claim code is sent there when not `/start {code}` ({code}: the code)."""
        ...

    def configured(self, settings: S) -> bool:
        """Whether the settings turn it on."""
        ...

    def describe(self, settings: S) -> str | None:
        """How it will run, for doctor ("Slack (Socket Mode)"); None when it cannot."""
        ...

    def problems(self, settings: S) -> list[Finding]:
        """What in its settings keeps it from starting or serving, as doctor says it."""
        ...

    def build(self, settings: S, host: Host) -> Adapter:
        """Its adapter, not started; ConfigurationError when the settings cannot make one."""
        ...

    async def probe(self, settings: S) -> list[Finding]:
        """Doctor's questions to its API: do the tokens work, is it reachable."""
        ...

    def menu(self) -> Sequence[MenuCommand]:
        """The commands it lists for people (empty when it lists none)."""
        ...


async def ask_json(method: str, url: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    """One HTTP call of a probe: the status and the JSON object answered (empty if none)."""
    import aiohttp  # here: only doctor probes; a command that serves nothing never pays it

    timeout = aiohttp.ClientTimeout(total=PROBE_TIMEOUT)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.request(method, url, **kwargs) as response,
    ):
        try:
            body = await response.json(content_type=None)
        except ValueError:
            body = {}
        return response.status, body if isinstance(body, dict) else {}
