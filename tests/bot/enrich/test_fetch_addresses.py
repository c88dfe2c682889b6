"""bot.enrich.fetch and the addresses a link spells: each spelling of loopback, given
directly or as a redirect's `Location` from an allowed page, is refused with the reason
and the page server never hears of it; cloud metadata is refused with private
addresses allowed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from aiohttp import web

from bot.enrich.fetch import FetchFailed, FetchPolicy, fetch
from tests.bot.enrich.pages_server import page_server
from tests.bot.enrich.policy import policy as fetch_policy
from tests.bot.net.spellings import LOOPBACK, METADATA

REFUSED = "the address points into a private network"
# The allowed first hop listens on 127.0.0.2, trusted by its address; 127.0.0.1 is not.
GUARDED = fetch_policy(timeout=2.0, trusted_hosts=frozenset({"127.0.0.2"}))


async def redirect(request: web.Request) -> web.Response:
    """A redirect to `to` written into the header as it is: a hostile server sends raw
    UTF-8, not the percent-encoded form aiohttp's HTTPFound would write."""
    return web.Response(status=302, headers={"Location": request.query["to"]})


@dataclass
class Sites:
    page: str  # http://127.0.0.1:PORT, the page nobody may reach
    seen: list[str]  # what it was asked for
    allowed: str  # http://127.0.0.2:PORT, a trusted page that redirects
    hops: list[str]

    @property
    def port(self) -> int:
        return int(self.page.rsplit(":", 1)[1])

    def via_redirect(self, target: str) -> str:
        return f"{self.allowed}/redirect?to={quote(target, safe='')}"


@pytest.fixture
async def sites() -> AsyncIterator[Sites]:
    seen: list[str] = []
    hops: list[str] = []
    async with (
        page_server(seen=seen) as page,
        page_server({"/redirect": redirect}, host="127.0.0.2", seen=hops) as allowed,
    ):
        yield Sites(page, seen, allowed, hops)


async def _reason(url: str, policy: FetchPolicy = GUARDED) -> str:
    with pytest.raises(FetchFailed) as failed:
        await fetch(url, policy)
    return str(failed.value)


async def test_the_trusted_first_hop_is_fetched(sites: Sites) -> None:
    fetched = await fetch(f"{sites.allowed}/compost", GUARDED)
    assert b"bokashi" in fetched.data
    assert await _reason(f"{sites.page}/compost") == REFUSED and sites.seen == []


@pytest.mark.parametrize("spelling", LOOPBACK.values(), ids=LOOPBACK.keys())
async def test_a_link_to_loopback_in_any_spelling_is_refused_and_never_requested(
    sites: Sites, spelling: str
) -> None:
    assert await _reason(f"http://{spelling}:{sites.port}/compost") == REFUSED
    assert sites.seen == []


@pytest.mark.parametrize("spelling", LOOPBACK.values(), ids=LOOPBACK.keys())
async def test_a_redirect_to_loopback_in_any_spelling_is_refused_and_never_requested(
    sites: Sites, spelling: str
) -> None:
    target = f"http://{spelling}:{sites.port}/compost"
    assert await _reason(sites.via_redirect(target)) == REFUSED
    assert len(sites.hops) == 1 and sites.seen == []


@pytest.mark.parametrize("spelling", METADATA.values(), ids=METADATA.keys())
async def test_metadata_in_any_spelling_is_refused_with_private_addresses_allowed(
    sites: Sites, spelling: str
) -> None:
    """Nothing listens on the metadata address here: an attempt would say "could not
    be reached" or run into the time limit instead."""
    policy = fetch_policy(allow_private=True, timeout=2.0)
    url = f"http://{spelling}/latest/meta-data/iam/security-credentials/"
    assert await _reason(url, policy) == REFUSED
    assert await _reason(sites.via_redirect(url), policy) == REFUSED
    assert len(sites.hops) == 1
