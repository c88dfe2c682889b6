"""The limits of fetching a shared link (FetchPolicy) and the failure a person is told
(FetchFailed): what the rest of the house names without fetching, so that a process
that never fetches (a chat with no link yet, `brainbot mcp`) does not import the HTTP
client that bot.enrich.fetch uses (~0.1 CPU-s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

from bot.net import AddressRules


def _user_agent() -> str:
    try:
        release = version("brainbot")
    except PackageNotFoundError:
        release = "dev"
    return f"brainbot/{release} (personal notes bot; fetches a link its user saved)"


@dataclass(frozen=True)
class FetchPolicy:
    """Limits of one fetch (BRAINBOT_FETCH_MAX_BYTES, _TIMEOUT, _ALLOW_PRIVATE,
    _TRUSTED_HOSTS, BRAINBOT_MAX_REDIRECTS): the settings are their one home, so a policy
    has no defaults of its own.

    `trusted_hosts` are host names that may resolve into a private network even when
    `allow_private` is off: one trusted wiki, not the whole home network.
    """

    max_bytes: int
    timeout: float
    allow_private: bool
    trusted_hosts: frozenset[str]
    max_redirects: int
    user_agent: str = field(default_factory=_user_agent)

    @property
    def rules(self) -> AddressRules:
        """The addresses a fetch under this policy may connect to."""
        return AddressRules(self.allow_private, self.trusted_hosts)


class FetchFailed(Exception):
    """Why a link could not be fetched, in words that follow "couldn't fetch the page: "."""
