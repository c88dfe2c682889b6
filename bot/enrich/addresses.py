"""Which network addresses a shared link may make brainbot connect to.

A link in a chat message is chosen by whoever wrote the message, and brainbot runs
inside someone's home network or cloud account: without this check, "save
http://192.168.1.1/admin" or "http://169.254.169.254/latest/meta-data/" would make it
read a router's page or the cloud's credentials into a note. So a host name is resolved
once, every address it gives is checked, and only the addresses that pass are handed
to the connector, which connects to exactly those: a DNS answer that changes between
the check and the connection (DNS rebinding) has nothing left to change.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud instance metadata (AWS, GCP, Azure, OpenStack, Alibaba, AWS over IPv6): never a
# page a person saves, and it hands out credentials, so refused even with
# BRAINBOT_FETCH_ALLOW_PRIVATE.
METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
)
# Shared address space (carrier-grade NAT, also Tailscale): not global, but Python
# 3.11's `is_private` does not say so.
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_LEGACY_IPV4 = re.compile(r"(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}", re.IGNORECASE)


class AddressRefused(OSError):
    """A host whose every address is one brainbot may not connect to.

    An OSError, because aiohttp hands resolver errors on as the `os_error` of the
    ClientConnectorError it raises; the fetch looks for this type there.
    """


def is_public(address: IPAddress) -> bool:
    """True for an address on the public internet: not private, loopback, link-local,
    multicast, reserved, unspecified, shared (100.64/10), nor such an address wrapped
    in IPv6 (`::ffff:127.0.0.1`, 6to4 `2002:7f00:1::`)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return is_public(embedded)
    if isinstance(address, ipaddress.IPv4Address) and address in _CGNAT:
        return False
    return address.is_global and not (
        address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


def may_connect(address: IPAddress, *, allow_private: bool) -> bool:
    """Whether brainbot may connect to `address` (metadata addresses never)."""
    if address in METADATA or _unwrapped(address) in METADATA:
        return False
    return allow_private or is_public(address)


def literal_address(host: str) -> IPAddress | None:
    """The address a URL's host spells out, else None for a name: `127.0.0.1`, `[::1]`,
    and the legacy IPv4 spellings the system resolver also reads (`2130706433`,
    `127.1`, `0x7f.0.0.1`), so they are refused for what they are."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


class GuardedResolver(AbstractResolver):
    """Resolves like the system does, then keeps only the addresses that may be used.

    `trusted_hosts` are names allowed to resolve into a private network (a wiki on
    the home network) without opening every private address to any link.
    """

    def __init__(self, *, allow_private: bool, trusted_hosts: Iterable[str] = ()) -> None:
        self._system = ThreadedResolver()
        self._allow_private = allow_private
        self._trusted = frozenset(host.lower() for host in trusted_hosts)

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        answers = await self._system.resolve(host, port, family)
        allow_private = self._allow_private or host.lower().rstrip(".") in self._trusted
        kept = [
            answer
            for answer in answers
            if may_connect(ipaddress.ip_address(answer["host"]), allow_private=allow_private)
        ]
        if not kept:
            refused = ", ".join(sorted({answer["host"] for answer in answers}))
            raise AddressRefused(f"{host} resolves only to refused addresses ({refused})")
        return kept

    async def close(self) -> None:
        await self._system.close()


def _unwrapped(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
