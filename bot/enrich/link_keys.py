"""The links a message shares, and the key under which a link saved before is recognised.

Pure text work: no network. `find_urls` is what the pipeline fetches; `normalise` is
what it compares, so the same page shared twice (once from a newsletter with
`utm_source`, once from the address bar without `www.`) is one page, not two.

Which links a text holds (http and https, outside code, without the punctuation a
sentence put after them) is storage.text.urls' to say; this module says which of them are
one page. `normalise` maps `http` to `https` and drops a leading `www.`: to a person
these are the same page, and sites that serve different pages on them are rare enough.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

import idna

from storage.text import urls

# Query parameters that say where a link was clicked, not which page it is.
_TRACKING = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "mc_cid",
        "mc_eid",
        "igshid",
        "igsh",
        "ref_src",
        "ref_url",
        "_ga",
        "_gl",
    }
)
# Share tokens that only some sites use; elsewhere the same name may choose the page.
_TRACKING_ON_SITE = {
    "youtube.com": frozenset({"si", "feature", "pp"}),
    "m.youtube.com": frozenset({"si", "feature", "pp"}),
    "youtu.be": frozenset({"si", "feature"}),
    "music.youtube.com": frozenset({"si", "feature"}),
    "open.spotify.com": frozenset({"si", "context"}),
    "twitter.com": frozenset({"s", "t"}),
    "x.com": frozenset({"s", "t"}),
}
_DEFAULT_PORT = {"http": 80, "https": 443}
# RFC 3986: characters a URL may hold unescaped in a path or query; an escape of an
# unreserved character (`%7E` for `~`) means the character itself.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_KEEP = _UNRESERVED | frozenset("!$&'()*+,;=:@/?%")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def find_urls(text: str) -> list[str]:
    """The http and https links in `text`, in order of appearance, each page once.

    Two spellings of one page (`normalise` gives them the same key) count once; the
    first spelling is the one returned, so the note keeps what the person wrote.
    """
    found: list[str] = []
    seen: set[str] = set()
    for url in urls.links(text):
        try:
            key = normalise(url)
        except ValueError:
            continue
        if key not in seen:
            seen.add(key)
            found.append(url)
    return found


def normalise(url: str) -> str:
    """The key under which "this link was saved before" is recognised.

    Lowercase host in ASCII (IDNA), `https` for `http`, no `www.`, no default port, no
    user or password, no fragment, no tracking parameters (the other parameters keep
    their order), escapes in one spelling, and no trailing slash except the root's.
    Raises ValueError for something that is not an http(s) link with a host.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORT:
        raise ValueError(f"not an http or https link: {url!r}")
    host = _ascii_host(parts.hostname or "")
    if not host:
        raise ValueError(f"a link without a host: {url!r}")
    port = parts.port  # raises ValueError for a port that is not a number in range
    while host.startswith("www."):  # every one: `www.www.org` is kept as `org` at once
        host = host.removeprefix("www.")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc = f"{netloc}:{port}"
    path = _escapes(parts.path).rstrip("/") or "/"
    query = _without_tracking(parts.query, host)
    return urlunsplit(("https", netloc, path, query, ""))


def _ascii_host(host: str) -> str:
    """The host as DNS spells it: `Bücher.example` is `xn--bcher-kva.example`."""
    host = host.rstrip(".").lower()
    if host.isascii():
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as error:
        raise ValueError(f"a host name that is not valid: {host!r}") from error


def _escapes(part: str) -> str:
    """One spelling for each character: `%7e` and `~` are `~`, `%2f` is `%2F`, `é` is
    `%C3%A9`; an escaped `/` or `&` stays escaped, since it means something else."""

    def unescape(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    part = _ESCAPE.sub(unescape, part)
    return "".join(
        char if char in _KEEP else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        for char in part
    )


def _without_tracking(query: str, host: str) -> str:
    site_only = _TRACKING_ON_SITE.get(host, frozenset())
    kept = []
    for pair in query.split("&"):
        if not pair:
            continue
        name = pair.split("=", 1)[0].lower()
        if name.startswith("utm_") or name in _TRACKING or name in site_only:
            continue
        kept.append(_escapes(pair))
    return "&".join(kept)
