"""Fetch one shared link safely: the page or document behind it, or a reason a person reads.

What "safely" means here, each rule because a link in a chat message is untrusted:
- only http and https, and only addresses on the public internet (bot.net), checked by
  the connector on the very address it dials, on every redirect hop (no second DNS
  lookup; a host is read as the client spells it, so `127。0。0。1` is 127.0.0.1);
- redirects followed by hand, at most the policy's max_redirects, a loop refused;
- one time limit over the whole fetch, redirects and a slowly dripping body included;
- a size limit on the bytes as decoded: Content-Length over it is refused before reading,
  a body is read only to one byte past it, and gzip is inflated here, in bounded steps,
  so a small compressed body cannot unpack into gigabytes in memory;
- only pages and documents (HTML, plain text, Markdown, PDF): anything else is refused
  from its headers, before its body is read.
"""

from __future__ import annotations

import asyncio
import http
import socket
import weakref
import zlib
from dataclasses import dataclass
from urllib.parse import urljoin

import aiohttp
from yarl import URL

from bot.enrich.fetch_policy import FetchFailed, FetchPolicy
from bot.net import AddressRefused, AddressRules, GuardedConnector

READABLE_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "text/plain",
        "text/markdown",
        "text/x-markdown",
        "application/pdf",
    }
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Said for a private, loopback or cloud metadata address, however it was spelled.
REFUSED = "the address points into a private network"
# Sent with every request; PDF last, since a page is what most links mean.
_ACCEPT = (
    "text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.8,text/plain;q=0.8,"
    "application/pdf;q=0.7"
)
_CHUNK = 64 * 1024
# Types a server says when it does not know: the first bytes decide (a PDF or a page).
_UNSURE_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})


@dataclass(frozen=True)
class Fetched:
    """A fetched page or document, as the server sent it (decompressed)."""

    url: str
    final_url: str
    status: int
    content_type: str  # lowercased MIME type without parameters: "text/html"
    charset: str | None  # from the Content-Type header, lowercased; None when not said
    data: bytes


# Sessions made by open_session, with the rules each was built for: fetch refuses any
# other session, since one without the guarded connector would connect anywhere.
_GUARDED: weakref.WeakKeyDictionary[aiohttp.ClientSession, AddressRules] = (
    weakref.WeakKeyDictionary()
)


def open_session(policy: FetchPolicy) -> aiohttp.ClientSession:
    """A session for many fetches under `policy` (connections are reused); close it after.

    Its connector checks every address it dials (GuardedConnector), it ignores proxy
    settings from the environment (a proxy would resolve names itself, unchecked), and
    it leaves bodies compressed so `fetch` can inflate them within the size limit.
    """
    rules = policy.rules
    connector = GuardedConnector(rules, limit_per_host=4)
    session = aiohttp.ClientSession(
        connector=connector,
        trust_env=False,
        auto_decompress=False,
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=policy.timeout),
        headers={"User-Agent": policy.user_agent, "Accept": _ACCEPT},
    )
    _GUARDED[session] = rules
    return session


async def fetch(
    url: str, policy: FetchPolicy, *, session: aiohttp.ClientSession | None = None
) -> Fetched:
    """Fetch `url` under `policy`; raise FetchFailed with the reason when it cannot be.

    `session`, when given, must come from `open_session` with the same network rules
    (allow_private, trusted_hosts); without one, a session is opened for this fetch.
    """
    if session is None:
        async with open_session(policy) as own:
            return await fetch(url, policy, session=own)
    if _GUARDED.get(session) != policy.rules:
        raise ValueError("fetch needs a session from open_session(policy) with the same rules")
    try:
        async with asyncio.timeout(policy.timeout):
            return await _follow(url, policy, session)
    except TimeoutError:
        raise FetchFailed(f"it took longer than {policy.timeout:g} s") from None
    except aiohttp.ClientConnectorCertificateError:
        raise FetchFailed("the site's certificate is not valid") from None
    except aiohttp.ClientSSLError:
        raise FetchFailed("a secure connection to the site failed") from None
    except aiohttp.ClientConnectorError as error:
        if isinstance(error.os_error, AddressRefused):
            raise FetchFailed(REFUSED) from None
        if isinstance(error.os_error, socket.gaierror):
            raise FetchFailed("the site could not be found") from None
        raise FetchFailed("the site could not be reached") from None
    except aiohttp.InvalidURL:
        raise FetchFailed("the address is not valid") from None
    except aiohttp.ClientError:
        raise FetchFailed("the site broke off the connection") from None


async def _follow(url: str, policy: FetchPolicy, session: aiohttp.ClientSession) -> Fetched:
    """Request `url`, following redirects by hand so each hop is checked like the first."""
    current = url
    seen = {url}
    for _ in range(policy.max_redirects + 1):
        async with session.get(
            _checked(current, policy),
            allow_redirects=False,
            headers={"Accept-Encoding": "gzip, deflate"},
        ) as response:
            location = response.headers.get("Location")
            if response.status in _REDIRECTS and location:
                current = urljoin(current, location.strip())
                if current in seen:
                    raise FetchFailed("it redirects in a loop")
                seen.add(current)
                continue
            if not 200 <= response.status < 300:
                raise FetchFailed(_status_words(response))
            content_type, data = await _read(response, policy)
            return Fetched(
                url=url,
                final_url=current,
                status=response.status,
                content_type=content_type,
                charset=(response.charset or "").lower() or None,
                data=data,
            )
    raise FetchFailed(f"it redirects more than {policy.max_redirects} times")


def _checked(url: str, policy: FetchPolicy) -> URL:
    """`url` as aiohttp will request it, refused early for what the address alone
    says: its scheme, and a host that spells a refused address in any form (`localhost`,
    `2130706433`, `127。0。0。1`). The connector checks the address it dials anyway;
    this gives the person the reason rather than a failed connection."""
    try:
        parsed = URL(url)
    except (ValueError, UnicodeError):
        raise FetchFailed("the address is not valid") from None
    if parsed.scheme.lower() not in ("http", "https"):
        raise FetchFailed("only http and https links are fetched")
    host = parsed.raw_host
    if not host:
        raise FetchFailed("the address is not valid")
    if policy.rules.refusal(host) is not None:
        raise FetchFailed(REFUSED)
    return parsed


def _status_words(response: aiohttp.ClientResponse) -> str:
    reason = response.reason
    if not reason:
        try:
            reason = http.HTTPStatus(response.status).phrase
        except ValueError:
            reason = "error"
    return f"{response.status} {reason}"


async def _read(response: aiohttp.ClientResponse, policy: FetchPolicy) -> tuple[str, bytes]:
    """The body's type and decoded bytes, within the size limit; refused from the
    headers when the type or the declared length already says no."""
    said = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if said not in READABLE_TYPES and said not in _UNSURE_TYPES:
        raise FetchFailed(f"it is a {said} file, not a page or document")
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    inflate = _inflater(encoding)
    declared = response.content_length
    if declared is not None and declared > policy.max_bytes and inflate is None:
        raise FetchFailed(f"it is larger than {_size(policy.max_bytes)}")
    body = bytearray()
    async for chunk in response.content.iter_chunked(_CHUNK):
        body += chunk if inflate is None else inflate(chunk, policy.max_bytes + 1 - len(body))
        if len(body) > policy.max_bytes:
            raise FetchFailed(f"it is larger than {_size(policy.max_bytes)}")
        if said in _UNSURE_TYPES and body:
            said = _sniff(bytes(body[:1024]))
    if said in _UNSURE_TYPES:
        said = _sniff(bytes(body[:1024]))
    return said, bytes(body)


def _sniff(start: bytes) -> str:
    """The type of a body its server did not name: a PDF or a page, else refused."""
    if start.startswith(b"%PDF-"):
        return "application/pdf"
    head = start.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--")):
        return "text/html"
    if not head:
        return "text/plain"
    raise FetchFailed("it is a file of unknown type, not a page or document")


def _inflater(encoding: str) -> _Inflate | None:
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return _Inflate(zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        return _Inflate(zlib.MAX_WBITS, raw_fallback=True)
    raise FetchFailed(f"it is compressed as {encoding}, which brainbot does not read")


class _Inflate:
    """Inflates a compressed body in steps of at most `room` bytes, so a body that
    unpacks to far more than the limit stops at the limit instead of filling memory."""

    def __init__(self, wbits: int, *, raw_fallback: bool = False) -> None:
        self._raw_fallback = raw_fallback  # "deflate" is zlib-wrapped or, from some, raw
        self._inflate = zlib.decompressobj(wbits)
        self._started = False

    def __call__(self, chunk: bytes, room: int) -> bytes:
        room = max(room, 1)  # 0 would mean "no limit" to zlib
        try:
            try:
                out = self._inflate.decompress(chunk, room)
            except zlib.error:
                if not (self._raw_fallback and not self._started):
                    raise
                self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                out = self._inflate.decompress(chunk, room)
        except zlib.error:
            raise FetchFailed("its compressed data is damaged") from None
        self._started = True
        # What did not fit stays in unconsumed_tail; one byte past the room already
        # tells the caller the body is too large.
        return out


def _size(limit: int) -> str:
    """5_000_000 → "5 MB", 1_500_000 → "1.5 MB", 200_000 → "200 KB"."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if limit >= scale:
            return f"{limit / scale:.3g} {unit}"
    return f"{limit} bytes"
