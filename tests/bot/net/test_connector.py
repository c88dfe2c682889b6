"""bot.net's guarded connector, used as aiohttp uses it, against a real server on
127.0.0.1: every spelling of a refused address is refused by the connector itself,
before a byte reaches the server, and a trusted host still works by name."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.net import AddressRefused, AddressRules, GuardedConnector
from tests.bot.net.spellings import LOOPBACK, METADATA


class Page:
    def __init__(self, server: TestServer, seen: list[str]) -> None:
        self.server = server
        self.seen = seen

    @property
    def port(self) -> int:
        assert self.server.port is not None
        return self.server.port


@pytest.fixture
async def page() -> AsyncIterator[Page]:
    seen: list[str] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.Response(text="the router's admin page")

    app = web.Application()
    app.router.add_get("/{tail:.*}", answer)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield Page(server, seen)
    await server.close()


async def _get(rules: AddressRules, url: str) -> str:
    async with (
        aiohttp.ClientSession(connector=GuardedConnector(rules)) as session,
        session.get(url) as response,
    ):
        return await response.text()


@pytest.mark.parametrize("spelling", LOOPBACK.values(), ids=LOOPBACK.keys())
async def test_the_connector_refuses_loopback_in_any_spelling_and_sends_nothing(
    page: Page, spelling: str
) -> None:
    with pytest.raises(aiohttp.ClientError) as refused:
        await _get(AddressRules(), f"http://{spelling}:{page.port}/admin")
    assert page.seen == []
    # Refused by the guard, or (aiohttp 3.14+) a legacy number form refused as a URL.
    error = refused.value
    assert isinstance(error, aiohttp.InvalidURL) or (
        isinstance(error, aiohttp.ClientConnectorError)
        and isinstance(error.os_error, AddressRefused)
    ), repr(error)


@pytest.mark.parametrize("spelling", METADATA.values(), ids=METADATA.keys())
async def test_metadata_is_refused_with_private_addresses_allowed_and_when_trusted(
    spelling: str,
) -> None:
    trusted = spelling.strip("[]")
    for rules in (
        AddressRules(allow_private=True),
        AddressRules(trusted_hosts=frozenset({trusted})),
    ):
        with pytest.raises(aiohttp.ClientError) as refused:
            await _get(rules, f"http://{spelling}/latest/meta-data/")
        error = refused.value
        assert isinstance(error, aiohttp.InvalidURL) or (
            isinstance(error, aiohttp.ClientConnectorError)
            and isinstance(error.os_error, AddressRefused)
            and "cloud metadata" in error.os_error.reason
        ), repr(error)


async def test_a_trusted_name_reaches_its_private_address_and_the_address_alone_does_not(
    page: Page,
) -> None:
    """This also shows aiohttp still calls the connector's `_resolve_host`: without it
    the socket factory would refuse the trusted host's loopback address."""
    rules = AddressRules(trusted_hosts=frozenset({"LocalHost."}))
    assert await _get(rules, f"http://localhost:{page.port}/wiki") == "the router's admin page"
    with pytest.raises(aiohttp.ClientConnectorError):
        await _get(rules, f"http://127.0.0.1:{page.port}/admin")
    assert page.seen == ["/wiki"]


async def test_private_addresses_are_reached_when_allowed(page: Page) -> None:
    rules = AddressRules(allow_private=True)
    assert await _get(rules, f"http://127.0.0.1:{page.port}/lan") == "the router's admin page"


async def test_a_socket_is_never_made_for_a_refused_address_even_past_the_resolver(
    page: Page,
) -> None:
    """If aiohttp stopped calling `_resolve_host` (a private method), the socket factory
    (public since aiohttp 3.12) still refuses: the guard fails closed."""

    class Bypassed(GuardedConnector):
        _resolve_host = aiohttp.TCPConnector._resolve_host

    for url in (f"http://127.0.0.1:{page.port}/", f"http://localhost:{page.port}/"):
        async with aiohttp.ClientSession(connector=Bypassed(AddressRules())) as session:
            with pytest.raises(aiohttp.ClientConnectorError) as refused:
                await session.get(url)
        assert isinstance(refused.value.os_error, OSError)
    assert page.seen == []


def test_the_aiohttp_seams_the_guard_uses_are_still_there() -> None:
    """The connector overrides TCPConnector._resolve_host and passes socket_factory:
    an aiohttp that renames either fails here, by name, not in production."""
    resolve = inspect.signature(aiohttp.TCPConnector._resolve_host)
    assert list(resolve.parameters) == ["self", "host", "port", "traces"]
    assert "socket_factory" in inspect.signature(aiohttp.TCPConnector.__init__).parameters
