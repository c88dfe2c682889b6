"""The console as the process registers it (adapters.platform): no settings of its own,
never configured (it is what `brainbot run` chats on when no platform is), built with
its line history kept in the data folder, nothing for doctor to ask."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.base import Adapter
from adapters.platform import Finding, Host, MenuCommand, PlatformSettings

from .settings import PLATFORM

HISTORY_FILE = "console_history"  # in the data folder: the lines typed, between sessions


class Console:
    """The terminal's contract (see adapters.platform.Platform)."""

    name = PLATFORM
    title = "the console"
    settings = PlatformSettings
    claim = None  # the terminal's person is the owner: nothing to claim

    def configured(self, settings: PlatformSettings) -> bool:
        return False  # chosen when nothing else is, never by a setting

    def describe(self, settings: PlatformSettings) -> str | None:
        return "the console"

    def problems(self, settings: PlatformSettings) -> list[Finding]:
        return []

    def build(self, settings: PlatformSettings, host: Host) -> Adapter:
        # Imported here: the terminal's adapter brings the engine's commands with it,
        # which a command that only reads the settings does not need.
        from .terminal import ConsoleAdapter

        return ConsoleAdapter(history_file=host.data_dir / HISTORY_FILE)

    async def probe(self, settings: PlatformSettings) -> list[Finding]:
        return []

    def menu(self) -> Sequence[MenuCommand]:
        return ()  # /help lists the commands


CONSOLE = Console()
