"""Where brainbot may connect when a person or a note chose the address: a shared link
and its redirects (bot.enrich), a vault's HTTP tool (bot.custom_tools). One set of
rules, applied by the connector to the addresses it is about to open."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.net.addresses import AddressRefused, AddressRules

if TYPE_CHECKING:
    from bot.net.connector import GuardedConnector


def __getattr__(name: str) -> Any:
    # The connector is aiohttp's: loaded by the first fetch or HTTP tool, so a process
    # that names only the rules (every chat, through FetchPolicy) skips the HTTP client.
    if name == "GuardedConnector":
        from bot.net.connector import GuardedConnector

        return GuardedConnector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AddressRefused", "AddressRules", "GuardedConnector"]
