"""Where brainbot may connect when a person or a note chose the address: a shared link
and its redirects (bot.enrich), a vault's HTTP tool (bot.custom_tools). One set of
rules, applied by the connector to the addresses it is about to open."""

from __future__ import annotations

from bot.net.addresses import AddressRefused, AddressRules
from bot.net.connector import GuardedConnector

__all__ = ["AddressRefused", "AddressRules", "GuardedConnector"]
