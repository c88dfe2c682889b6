"""An aiohttp connector that opens connections only to addresses its rules allow.

The check sits where the connection is made, not in front of it: yarl rewrites a URL's
host before aiohttp sees it (`http://127。0。0。1/` is dialled as `127.0.0.1`), and
aiohttp connects to an IP literal without asking the resolver, so a guard that reads
the URL as written checks a different host than the one dialled. Here:

- `_resolve_host` is where aiohttp turns the host it will dial into addresses (a
  literal as it is, a name through the resolver, once: no DNS cache, so an answer that
  changes between check and connection has nothing left to change). Every address is
  judged with the host's name at hand (trusted hosts are trusted by name), and only
  those that pass are handed on;
- every socket is made by `_socket_for`, given the exact address it will connect to:
  a private address gets one only if `_resolve_host` let it through for a trusted
  host. So if a later aiohttp stops calling `_resolve_host` (a private method), the
  connector refuses private addresses instead of reaching them.

Proxies: a session on this connector must not use one (`trust_env=False`, no `proxy=`):
a proxy would resolve and connect on brainbot's behalf, and only the proxy's own
address would be checked.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from typing import Any

import aiohttp
from aiohttp.abc import ResolveResult
from aiohttp.resolver import ThreadedResolver
from aiohttp.tracing import Trace

from bot.net.addresses import AddressRefused, AddressRules, IPAddress, is_public

# What aiohttp hands a socket factory: (family, type, proto, canonname, sockaddr).
AddrInfo = tuple[Any, Any, int, str, tuple[Any, ...]]


class GuardedConnector(aiohttp.TCPConnector):
    """A TCPConnector that connects only where `rules` allow (see the module's doc).

    `options` go to TCPConnector (`limit_per_host=4`); the resolver, the DNS cache and
    the socket factory are this class's own.
    """

    def __init__(self, rules: AddressRules, **options: Any) -> None:
        super().__init__(
            # The system's resolver (hosts file included), as `getaddrinfo` answers;
            # it holds nothing to close.
            resolver=ThreadedResolver(),
            use_dns_cache=False,
            socket_factory=self._socket_for,
            **options,
        )
        self.rules = rules
        # Private addresses a trusted host resolved to: the only private ones a socket
        # is made for when private addresses are not allowed.
        self._trusted_private: set[IPAddress] = set()

    async def _resolve_host(
        self, host: str, port: int, traces: Sequence[Trace] | None = None
    ) -> list[ResolveResult]:
        reason = self.rules.refusal(host)
        if reason is not None:
            raise AddressRefused(host, reason)
        answers = await super()._resolve_host(host, port, traces=traces)
        kept: list[ResolveResult] = []
        refused: list[str] = []
        for answer in answers:
            address = ipaddress.ip_address(answer["host"])
            reason = self.rules.refusal(host, address)
            if reason is None:
                kept.append(answer)
                if not (self.rules.allow_private or is_public(address)):
                    self._trusted_private.add(address)
            else:
                refused.append(reason)
        if not kept:
            raise AddressRefused(host, "; ".join(sorted(set(refused))))
        return kept

    def _socket_for(self, addr_info: AddrInfo) -> socket.socket:
        family, kind, proto, _, sockaddr = addr_info
        address = ipaddress.ip_address(sockaddr[0])
        reason = self.rules.address_refusal(address)
        if reason is not None and address not in self._trusted_private:
            raise AddressRefused(str(address), reason)
        return socket.socket(family, kind, proto)
