"""Which network addresses brainbot may connect to when a person or a note chose them.

A link in a chat message is chosen by whoever wrote the message, a vault's HTTP tool by
whoever can write the vault, and brainbot runs inside someone's home network or cloud
account: without these rules, "save http://192.168.1.1/admin" or
"http://169.254.169.254/latest/meta-data/" would make it read a router's page or the
cloud's credentials into a note.

A host is judged as the HTTP client will dial it: `host_key` spells it the way yarl
(and so aiohttp) does, which maps full-width and other Unicode digits, ideographic and
half-width dots to ASCII (`127。0。0。1` is `127.0.0.1`). The rules are applied in
the connector itself (bot.net.connector), to the very addresses it is about to open.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass

from yarl import URL

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud instance metadata (AWS, GCP, Azure, OpenStack, Alibaba, AWS over IPv6): never a
# page a person saves, and it hands out credentials, so refused even with
# BRAINBOT_FETCH_ALLOW_PRIVATE and for a trusted host.
METADATA = frozenset(
    ipaddress.ip_address(address)
    for address in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
)
# Shared address space (carrier-grade NAT, also Tailscale): not global, but Python
# 3.11's `is_private` does not say so.
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_LEGACY_IPV4 = re.compile(r"(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}", re.IGNORECASE)


class AddressRefused(OSError):
    """An address (or every address of a host) that brainbot may not connect to.

    An OSError, because aiohttp hands resolver and socket errors on as the `os_error`
    of the ClientConnectorError it raises; callers look for this type there.
    """

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host}: {reason}")
        self.host = host
        self.reason = reason


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


def is_metadata(address: IPAddress) -> bool:
    """A cloud metadata address, also wrapped in IPv6 (`::ffff:169.254.169.254`)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address in METADATA


def literal_address(host: str) -> IPAddress | None:
    """The address a URL's host spells out, else None for a name: `127.0.0.1`, `[::1]`,
    and the legacy IPv4 spellings the system resolver also reads (`2130706433`,
    `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, a trailing dot), so they are refused for what
    they are. Give it the host as yarl spells it: Unicode digits are not read here."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    host = host.removesuffix(".")
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def host_key(host: str) -> str:
    """`host` as the HTTP client dials it, for comparing: yarl's spelling (IDNA with
    UTS #46 mapping, lower case, IPv6 compressed) without a trailing dot. A host yarl
    cannot spell is returned lower-cased, so it matches nothing it should not."""
    try:
        spelled = URL.build(scheme="http", host=host.strip("[]")).raw_host or ""
    except (ValueError, UnicodeError):
        spelled = host.lower()
    return spelled.rstrip(".")


def _is_loopback_name(key: str) -> bool:
    # RFC 6761: `localhost` and names under it are loopback, whatever a resolver says.
    return key == "localhost" or key.endswith(".localhost")


@dataclass(frozen=True)
class AddressRules:
    """Which addresses a connection may reach.

    Public addresses always; private, loopback and link-local ones with
    `allow_private`, or for a host in `trusted_hosts` (a wiki on the home network,
    named by the admin, without opening every private address to any link); cloud
    metadata addresses never.
    """

    allow_private: bool = False
    trusted_hosts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Spelled as the client dials them, so `Wiki.Home.` trusts `wiki.home`.
        object.__setattr__(self, "trusted_hosts", frozenset(map(host_key, self.trusted_hosts)))

    def trusts(self, host: str) -> bool:
        """Whether `host` (as dialled) may reach private addresses."""
        return self.allow_private or host_key(host) in self.trusted_hosts

    def refusal(self, host: str, address: IPAddress | None = None) -> str | None:
        """Why `host` (as dialled) may not be reached at `address`, or None. Without an
        address, what its spelling alone says: an address in any of its forms
        (`2130706433`), or a name for this machine (`localhost.`)."""
        if address is None:
            address = literal_address(host)
        if address is not None and is_metadata(address):
            return f"{address} is a cloud metadata address"
        if self.trusts(host):
            return None
        if address is None:
            return "a name for this machine" if _is_loopback_name(host_key(host)) else None
        return self.address_refusal(address)

    def address_refusal(self, address: IPAddress) -> str | None:
        """Why `address` may not be reached whatever name led to it, or None."""
        if is_metadata(address):
            return f"{address} is a cloud metadata address"
        if self.allow_private or is_public(address):
            return None
        return f"{address} is a private address"
