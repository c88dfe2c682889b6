"""bot.enrich.fetch against a real aiohttp server on 127.0.0.1: what a shared link may
make brainbot read, and the reason a person is told when it may not."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.enrich.fetch import FetchFailed, FetchPolicy, fetch, open_session
from bot.readers.pages import read_page
from tests.bot.enrich.policy import policy as fetch_policy

LOCAL = fetch_policy(allow_private=True, timeout=2.0)
PAGE = b"<!doctype html><html><head><title>Tea</title></head><body><p>Oolong.</p></body></html>"
JAPANESE = "<html><head><title>お茶</title></head><body><p>緑茶と烏龍茶。</p></body></html>"


@dataclass
class Site:
    server: TestServer
    sent: dict[str, int] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.port}{path}"


def _app(sent: dict[str, int]) -> web.Application:
    async def page(_: web.Request) -> web.Response:
        return web.Response(body=PAGE, content_type="text/html", charset="utf-8")

    async def typed(request: web.Request) -> web.Response:
        kind = request.match_info["kind"].replace("-", "/")
        return web.Response(body=b"%PDF-1.7\n" + b"x" * 100, headers={"Content-Type": kind})

    async def untyped(_: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Length": str(len(PAGE))})
        response.content_type = ""
        await response.prepare(_)
        await response.write(PAGE)
        return response

    async def echo(request: web.Request) -> web.Response:
        asked = {name: request.headers.get(name, "") for name in ("User-Agent", "Accept")}
        asked["Accept-Encoding"] = request.headers.get("Accept-Encoding", "")
        return web.json_response(asked, content_type="text/plain")

    async def japanese(_: web.Request) -> web.Response:
        body = JAPANESE.encode("shift_jis")
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=Shift_JIS"})

    async def hang(_: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response(text="too late")

    async def drip(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)
        for _ in range(300):
            await response.write(b"<p>")
            await asyncio.sleep(0.1)
        return response

    async def huge(request: web.Request) -> web.StreamResponse:
        """50 MB, written in chunks as the client reads: the count shows when it stopped."""
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        await response.prepare(request)
        chunk = b"<p>" + b"a" * (64 * 1024 - 3)
        sent["huge"] = 0
        try:
            while sent["huge"] < 50_000_000:
                await response.write(chunk)
                sent["huge"] += len(chunk)
        except (ConnectionError, RuntimeError):
            pass
        return response

    async def declared(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        response.content_length = 50_000_000
        await response.prepare(request)
        sent["declared"] = 0
        await asyncio.sleep(30)
        return response

    async def bomb(_: web.Request) -> web.Response:
        body = gzip.compress(b"\0" * 20_000_000, compresslevel=9)  # 20 MB, ~20 KB sent
        sent["bomb"] = len(body)
        return web.Response(
            body=body, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}
        )

    async def gzipped(_: web.Request) -> web.Response:
        return web.Response(
            body=gzip.compress(PAGE),
            headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
        )

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound(request.query["to"])

    async def hop(request: web.Request) -> web.Response:
        left = int(request.match_info["left"])
        raise web.HTTPFound(f"/hop/{left - 1}" if left else "/page")

    async def loop(request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("/loop-b" if request.path == "/loop-a" else "/loop-a")

    app = web.Application()
    app.add_routes(
        [
            web.get("/page", page),
            web.get("/typed/{kind}", typed),
            web.get("/untyped", untyped),
            web.get("/japanese", japanese),
            web.get("/echo", echo),
            web.get("/hang", hang),
            web.get("/drip", drip),
            web.get("/huge", huge),
            web.get("/declared", declared),
            web.get("/bomb", bomb),
            web.get("/gzipped", gzipped),
            web.get("/redirect", redirect),
            web.get("/hop/{left}", hop),
            web.get("/loop-a", loop),
            web.get("/loop-b", loop),
        ]
    )
    return app


@pytest.fixture
async def site() -> AsyncIterator[Site]:
    sent: dict[str, int] = {}
    server = TestServer(_app(sent), host="127.0.0.1")
    await server.start_server()
    yield Site(server, sent)
    await server.close()


async def _reason(url: str, policy: FetchPolicy = LOCAL) -> str:
    with pytest.raises(FetchFailed) as failed:
        await fetch(url, policy)
    return str(failed.value)


async def test_a_page_comes_back_with_its_type_and_charset(site: Site) -> None:
    fetched = await fetch(site.url("/page"), LOCAL)
    assert fetched.status == 200
    assert (fetched.content_type, fetched.charset) == ("text/html", "utf-8")
    assert fetched.data == PAGE
    assert fetched.url == fetched.final_url == site.url("/page")


async def test_a_shift_jis_page_keeps_its_bytes_and_names_its_charset(site: Site) -> None:
    fetched = await fetch(site.url("/japanese"), LOCAL)
    assert fetched.charset == "shift_jis"
    assert fetched.data.decode("cp932") == JAPANESE


async def test_the_japanese_page_read_from_the_fetch_comes_out_right(site: Site) -> None:
    fetched = await fetch(site.url("/japanese"), LOCAL)
    page = read_page(fetched.data, fetched.final_url, fetched.charset)
    assert (page.title, page.text) == ("お茶", "緑茶と烏龍茶。")


async def test_the_site_is_told_who_asks_and_what_it_may_send(site: Site) -> None:
    asked = json.loads((await fetch(site.url("/echo"), LOCAL)).data)
    assert asked["User-Agent"] == LOCAL.user_agent
    assert asked["Accept"].startswith("text/html")
    assert "application/pdf" in asked["Accept"]
    assert asked["Accept-Encoding"] == "gzip, deflate"


async def test_a_pdf_is_fetched_as_a_document(site: Site) -> None:
    fetched = await fetch(site.url("/typed/application-pdf"), LOCAL)
    assert fetched.content_type == "application/pdf"
    assert fetched.data.startswith(b"%PDF-")


async def test_a_body_without_a_type_is_known_by_its_first_bytes(site: Site) -> None:
    fetched = await fetch(site.url("/untyped"), LOCAL)
    assert fetched.content_type == "text/html"


async def test_a_video_is_refused_by_its_type(site: Site) -> None:
    reason = await _reason(site.url("/typed/video-mp4"))
    assert reason == "it is a video/mp4 file, not a page or document"


async def test_a_missing_page_says_its_status(site: Site) -> None:
    assert await _reason(site.url("/nothing-here")) == "404 Not Found"


async def test_five_redirects_are_followed_and_the_final_address_kept(site: Site) -> None:
    fetched = await fetch(site.url("/hop/4"), LOCAL)  # /hop/4 … /hop/0, then /page
    assert fetched.final_url == site.url("/page")
    assert fetched.url == site.url("/hop/4")


async def test_a_sixth_redirect_is_refused(site: Site) -> None:
    assert await _reason(site.url("/hop/5")) == "it redirects more than 5 times"


async def test_a_redirect_loop_is_refused(site: Site) -> None:
    assert await _reason(site.url("/loop-a")) == "it redirects in a loop"


async def test_a_server_that_never_answers_fails_within_the_time_limit(site: Site) -> None:
    started = time.monotonic()
    reason = await _reason(site.url("/hang"), fetch_policy(allow_private=True, timeout=0.5))
    assert reason == "it took longer than 0.5 s"
    assert time.monotonic() - started < 1.5


async def test_a_body_that_drips_fails_within_the_time_limit(site: Site) -> None:
    started = time.monotonic()
    reason = await _reason(site.url("/drip"), fetch_policy(allow_private=True, timeout=0.5))
    assert reason == "it took longer than 0.5 s"
    assert time.monotonic() - started < 1.5


async def test_a_50_mb_page_is_refused_and_the_download_stopped_early(site: Site) -> None:
    policy = fetch_policy(allow_private=True, max_bytes=1_000_000, timeout=5.0)
    assert await _reason(site.url("/huge"), policy) == "it is larger than 1 MB"
    await asyncio.sleep(0.2)  # the server notices the closed connection
    assert site.sent["huge"] < 16_000_000  # a few socket buffers past the limit, not 50 MB


async def test_a_declared_length_over_the_limit_is_refused_before_reading(site: Site) -> None:
    started = time.monotonic()
    assert await _reason(site.url("/declared")) == "it is larger than 5 MB"
    assert time.monotonic() - started < 1.0  # the body (never sent) was not waited for


async def test_a_gzip_bomb_is_refused_at_the_limit_as_decoded(site: Site) -> None:
    policy = fetch_policy(allow_private=True, max_bytes=2_000_000, timeout=5.0)
    assert await _reason(site.url("/bomb"), policy) == "it is larger than 2 MB"
    assert site.sent["bomb"] < 2_000_000  # it was small on the wire


async def test_a_gzipped_page_arrives_decoded(site: Site) -> None:
    assert (await fetch(site.url("/gzipped"), LOCAL)).data == PAGE


async def test_the_default_policy_refuses_the_loopback_address(site: Site) -> None:
    reason = await _reason(site.url("/page"), fetch_policy())
    assert reason == "the address points into a private network"


async def test_the_default_policy_refuses_a_name_that_resolves_to_loopback(site: Site) -> None:
    reason = await _reason(f"http://localhost:{site.server.port}/page", fetch_policy())
    assert reason == "the address points into a private network"


async def test_a_redirect_from_an_allowed_host_into_loopback_is_refused(site: Site) -> None:
    """`localhost` is trusted here (the allowed first hop); 127.0.0.1 is not."""
    policy = fetch_policy(trusted_hosts=frozenset({"localhost"}), timeout=2.0)
    first = f"http://localhost:{site.server.port}"
    assert (await fetch(f"{first}/page", policy)).data == PAGE
    for target in (site.url("/page"), f"http://[::ffff:127.0.0.1]:{site.server.port}/page"):
        reason = await _reason(f"{first}/redirect?to={target}", policy)
        assert reason == "the address points into a private network"


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
    ],
)
async def test_cloud_metadata_is_refused_even_when_private_addresses_are_allowed(url: str) -> None:
    assert await _reason(url, LOCAL) == "the address points into a private network"


@pytest.mark.parametrize(
    "url", ["ftp://example.org/file.txt", "file:///etc/passwd", "javascript:alert(1)"]
)
async def test_only_http_and_https_are_fetched(url: str) -> None:
    assert await _reason(url, fetch_policy()) == "only http and https links are fetched"


async def test_a_shared_session_serves_many_fetches_and_a_foreign_one_is_refused(
    site: Site,
) -> None:
    async with open_session(LOCAL) as session:
        first = await fetch(site.url("/page"), LOCAL, session=session)
        second = await fetch(site.url("/gzipped"), LOCAL, session=session)
        assert first.data == second.data == PAGE
        with pytest.raises(ValueError, match="open_session"):
            await fetch(site.url("/page"), fetch_policy(), session=session)
    async with aiohttp.ClientSession() as plain:
        with pytest.raises(ValueError, match="open_session"):
            await fetch(site.url("/page"), LOCAL, session=plain)


def test_the_user_agent_says_who_fetches_and_why() -> None:
    agent = fetch_policy().user_agent
    assert agent.startswith("brainbot/")
    assert "fetches a link its user saved" in agent


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "[::1]",
        "0.0.0.0",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",  # shared address space (carrier-grade NAT)
        "169.254.1.1",
        "224.0.0.1",
        "240.0.0.1",
        "[fc00::1]",
        "[fe80::1]",
        "[::ffff:10.0.0.1]",
        "[2002:c0a8:101::1]",  # 6to4 around 192.168.1.1
        "2130706433",  # 127.0.0.1 in the legacy spellings the system resolver reads
        "127.1",
        "0x7f.0.0.1",
    ],
)
async def test_the_default_policy_refuses_every_private_kind_of_address(host: str) -> None:
    reason = await _reason(f"http://{host}:9/", fetch_policy())
    assert reason == "the address points into a private network"


async def test_a_redirect_to_another_scheme_is_refused(site: Site) -> None:
    reason = await _reason(site.url("/redirect?to=ftp://example.org/file"))
    assert reason == "only http and https links are fetched"


async def test_a_site_that_refuses_the_connection_says_so() -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    assert await _reason(f"http://127.0.0.1:{port}/") == "the site could not be reached"
