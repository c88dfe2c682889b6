"""bot.enrich.link_keys: the links a message shares, and one key per page."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.enrich.link_keys import find_urls, normalise


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        ("read https://x.org/a.", ["https://x.org/a"]),
        ("(see https://x.org/a_(b))", ["https://x.org/a_(b)"]),
        ("(see https://x.org/a)", ["https://x.org/a"]),
        ("Release notes (https://x.org/notes) and more", ["https://x.org/notes"]),
        ("[the docs](https://docs.x.org/start?v=2), then", ["https://docs.x.org/start?v=2"]),
        ("is it https://x.org/faq?", ["https://x.org/faq"]),
        ('she said "https://x.org/q"!', ["https://x.org/q"]),
        ("<https://x.org/angle>", ["https://x.org/angle"]),
        ("HTTPS://X.ORG/Caps", ["HTTPS://X.ORG/Caps"]),
        ("日本語のページ https://例え.jp/記事。とても良い", ["https://例え.jp/記事"]),
        ("（https://x.jp/a）", ["https://x.jp/a"]),  # noqa: RUF001
        ("two: https://a.org/1, https://b.org/2; end", ["https://a.org/1", "https://b.org/2"]),
        ("no scheme example.org or www.example.org", []),
        ("javascript:alert(1) file:///etc/passwd ftp://x.org/f", []),
        ("just https:// and http://", []),
    ],
)
def test_links_are_found_with_the_sentence_around_them_trimmed(text: str, urls: list[str]) -> None:
    assert find_urls(text) == urls


def test_a_hidden_link_as_the_adapters_write_it_yields_its_address() -> None:
    """Slack's <url|label> and Telegram's text_link arrive as `label (url)`."""
    assert find_urls("read the spec (https://spec.example.org/v2#auth).") == [
        "https://spec.example.org/v2#auth"
    ]


def test_the_same_page_twice_is_found_once_as_first_written() -> None:
    text = "https://www.x.org/a?utm_source=news and later http://x.org/a/ and https://x.org/b"
    assert find_urls(text) == ["https://www.x.org/a?utm_source=news", "https://x.org/b"]


def test_links_in_code_are_a_command_not_a_page_to_fetch() -> None:
    text = (
        "run `curl https://api.x.org/v1` then read https://x.org/guide\n"
        "```\nwget https://x.org/big.iso\n```\n"
    )
    assert find_urls(text) == ["https://x.org/guide"]


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("HTTP://WWW.Example.ORG:80/Path/", "https://example.org/Path"),
        ("https://example.org:443", "https://example.org/"),
        ("https://example.org:8443/a", "https://example.org:8443/a"),
        ("https://user:secret@example.org/a", "https://example.org/a"),
        ("https://example.org/a#section", "https://example.org/a"),
        (
            "https://example.org/a?utm_source=x&b=2&fbclid=y&a=1&gclid=z&mc_cid=q&mc_eid=r",
            "https://example.org/a?b=2&a=1",
        ),
        ("https://example.org/a?igshid=1&ref_src=twsrc", "https://example.org/a"),
        ("https://www.youtube.com/watch?v=abc&si=share1", "https://youtube.com/watch?v=abc"),
        ("https://youtu.be/abc?si=share1", "https://youtu.be/abc"),
        ("https://example.org/search?si=kept", "https://example.org/search?si=kept"),
        ("https://Bücher.example/ä", "https://xn--bcher-kva.example/%C3%A4"),
        ("https://example.org/%7euser/%e2%82%ac", "https://example.org/~user/%E2%82%AC"),
        ("https://example.org/a%2Fb", "https://example.org/a%2Fb"),
        ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
        ("https://example.org./", "https://example.org/"),
    ],
)
def test_one_page_has_one_key(url: str, key: str) -> None:
    assert normalise(url) == key


@pytest.mark.parametrize(
    "url", ["ftp://example.org/", "javascript:alert(1)", "https:///path", "https://x.org:99999/"]
)
def test_what_is_not_an_http_link_has_no_key(url: str) -> None:
    with pytest.raises(ValueError):
        normalise(url)


_hosts = st.from_regex(r"\A(www\.)?[a-z][a-z0-9-]{0,10}\.(org|jp|de)\Z")
_segments = st.lists(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6),
    max_size=4,
)
_params = st.lists(
    st.tuples(
        st.sampled_from(["a", "q", "utm_medium", "fbclid", "page", "si"]),
        st.text("xyz0é ", max_size=4),
    ),
    max_size=4,
)


def _url(
    scheme: str, host: str, segments: list[str], params: list[tuple[str, str]], frag: str
) -> str:
    from urllib.parse import quote

    path = "/".join(quote(segment, safe="") for segment in segments)
    query = "&".join(f"{name}={quote(value)}" for name, value in params)
    return (
        f"{scheme}://{host}/{path}" + (f"?{query}" if query else "") + (f"#{frag}" if frag else "")
    )


@given(
    st.sampled_from(["http", "https", "HTTPS"]),
    _hosts,
    _segments,
    _params,
    st.text("abc", max_size=3),
)
@example("http", "www.www.org", [], [], "")  # once a key kept a `www.` of its own
def test_a_key_is_its_own_key_and_ignores_scheme_www_tracking_and_fragment(
    scheme: str, host: str, segments: list[str], params: list[tuple[str, str]], frag: str
) -> None:
    key = normalise(_url(scheme, host, segments, params, frag))
    assert normalise(key) == key
    assert key.isascii()
    clean = [(name, value) for name, value in params if name not in ("utm_medium", "fbclid")]
    assert key == normalise(_url("https", host.removeprefix("www."), segments, clean, ""))


@given(_hosts, _segments)
def test_a_link_in_a_sentence_is_found_as_written(host: str, segments: list[str]) -> None:
    url = _url("https", host, segments, [], "")
    assert find_urls(f"Look at this: {url}. Nice!") == [url.rstrip(".")]
