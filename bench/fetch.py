"""A shared link read into a note (bot.enrich): fetch plus main-text extraction, and the
extractor chosen against the other candidate.

Speed: a saved 244 KB Wikipedia article (tests/data/pages/wikipedia-mozilla.html) served
by an aiohttp server on 127.0.0.1, fetched with bot.enrich.fetch and read in a thread
the way the pipeline does, RUNS times per extractor: median and p90 ms of the fetch
alone and of fetch + read, for bot.readers.pages (trafilatura in fast mode), trafilatura
with its fallback extractors, and readability-lxml + markdownify when those are
installed (`pip install readability-lxml markdownify`; not dependencies). Target: the
chosen one's median within TARGET_MEDIAN_MS.

Quality (needs Mozilla Readability's test pages, which are not shipped: set
BRAINBOT_BENCH_READABILITY_PAGES to a checkout's `test/test-pages` folder): for each of
the PAGES below, the share of the expected main text's words the extractor recovers
(recall), the share of its words that are in the expected text (precision), and how
often the title and the author agree with expected-metadata.json. The expected text
is Readability.js's own output, which readability-lxml ports: it starts with the edge.

Run: `python -m bench.fetch [runs]`.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestServer
from lxml import html as lxml_html
from trafilatura import extract_with_metadata

from bot.enrich.fetch import fetch, open_session
from bot.readers.pages import decode, read_page
from tests.bot.enrich.policy import policy as fetch_policy

TARGET_MEDIAN_MS = 300.0
ARTICLE = Path(__file__).parents[1] / "tests" / "data" / "pages" / "wikipedia-mozilla.html"
ARTICLE_URL = "https://en.wikipedia.org/wiki/Mozilla"
PAGES = [
    "aclu",
    "aktualne",
    "archive-of-our-own",
    "ars-1",
    "bbc-1",
    "blogger",
    "breitbart",
    "buzzfeed-1",
    "citylab-1",
    "cnet",
    "cnn",
    "daringfireball-1",
    "dropbox-blog",
    "ebb-org",
    "ehow-1",
    "engadget",
    "firefox-nightly-blog",
    "folha",
    "gitlab-blog",
    "gmw",
    "google-sre-book-1",
    "guardian-1",
    "heise",
    "herald-sun-1",
    "hukumusume",
    "iab-1",
    "ietf-1",
    "la-nacion",
    "lemonde-1",
    "liberation-1",
    "lwn-1",
    "medium-1",
    "medium-2",
    "mozilla-1",
    "msn",
    "nytimes-1",
    "nytimes-2",
    "pixnet",
    "qq",
    "quanta-1",
    "salon-1",
    "seattletimes-1",
    "telegraph",
    "theverge",
    "tmz-1",
    "tumblr",
    "v8-blog",
    "wapo-1",
    "webmd-1",
    "wikipedia",
    "wikipedia-3",
    "wordpress",
    "yahoo-2",
]

# title, author, Markdown text of a page
Extracted = tuple[str | None, str | None, str]


def with_read_page(data: bytes, url: str) -> Extracted:
    """What brainbot does: bot.readers.pages (trafilatura, fast mode)."""
    page = read_page(data, url, "utf-8")
    return page.title, page.author, page.text


def with_trafilatura_fallbacks(data: bytes, url: str) -> Extracted:
    """trafilatura as it is by default: its own extraction checked against two others."""
    document = extract_with_metadata(
        decode(data, "utf-8", html=True),
        url=url,
        output_format="markdown",
        include_formatting=True,
        include_comments=False,
        date_extraction_params={"extensive_search": False, "original_date": True},
    )
    if document is None:
        return None, None, ""
    text = re.sub(r"\A---\n.*?\n---\n", "", document.text or "", count=1, flags=re.DOTALL)
    return document.title, document.author, text


def with_readability(data: bytes, url: str) -> Extracted:
    """readability-lxml (a port of Firefox's Reader View) and markdownify, when installed:
    they are not dependencies (pip 23 cannot resolve them beside trafilatura's jusText)."""
    import markdownify
    from readability import Document

    document = Document(decode(data, "utf-8", html=True), url=url)
    text = markdownify.markdownify(document.summary(html_partial=True), heading_style="ATX")
    return document.short_title(), None, text


CHOSEN = "bot.readers.pages (trafilatura fast)"
EXTRACTORS: dict[str, Callable[[bytes, str], Extracted]] = {
    CHOSEN: with_read_page,
    "trafilatura with fallbacks": with_trafilatura_fallbacks,
}
try:
    import markdownify  # noqa: F401
    import readability  # noqa: F401

    EXTRACTORS["readability-lxml + markdownify"] = with_readability
except ImportError:
    print("(readability-lxml and markdownify not installed: that candidate is left out)")


async def _speed(runs: int) -> tuple[list[float], dict[str, list[float]]]:
    """Fetch times, and fetch + extract times per extractor (extraction in a thread)."""
    article = ARTICLE.read_bytes()

    async def serve(_: web.Request) -> web.Response:
        return web.Response(body=article, content_type="text/html", charset="utf-8")

    app = web.Application()
    app.add_routes([web.get("/wiki/Mozilla", serve)])
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    policy = fetch_policy(allow_private=True)
    url = f"http://127.0.0.1:{server.port}/wiki/Mozilla"
    fetches: list[float] = []
    totals: dict[str, list[float]] = {name: [] for name in EXTRACTORS}
    try:
        async with open_session(policy) as session:
            for name, extract in EXTRACTORS.items():
                for run in range(runs + 1):  # the first warms caches and imports
                    started = time.perf_counter()
                    fetched = await fetch(url, policy, session=session)
                    fetched_at = time.perf_counter()
                    await asyncio.to_thread(extract, fetched.data, ARTICLE_URL)
                    if run:
                        fetches.append((fetched_at - started) * 1000)
                        totals[name].append((time.perf_counter() - started) * 1000)
    finally:
        await server.close()
    return fetches, totals


_LINK = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[([^\]]*)\]\([^)]*\)")


def _words(text: str) -> collections.Counter[str]:
    return collections.Counter(re.findall(r"\w+", _LINK.sub(r"\1", text).lower()))


def _quality(folder: Path) -> None:
    print(f"\nquality on {len(PAGES)} of Mozilla Readability's test pages")
    for name, extract in EXTRACTORS.items():
        recall, precision, times = [], [], []
        titles = authors = with_title = with_author = 0
        for page in PAGES:
            source = (folder / page / "source.html").read_bytes()
            # The expected pages name no charset: read as the UTF-8 they are saved in.
            expected_html = (folder / page / "expected.html").read_text(encoding="utf-8")
            expected = _words(lxml_html.fromstring(expected_html).text_content())
            meta = json.loads(
                (folder / page / "expected-metadata.json").read_text(encoding="utf-8")
            )
            started = time.perf_counter()
            title, author, text = extract(source, "http://fakehost/test/page.html")
            times.append((time.perf_counter() - started) * 1000)
            got = _words(text)
            common = sum((got & expected).values())
            recall.append(common / max(1, sum(expected.values())))
            precision.append(common / max(1, sum(got.values())))
            if meta.get("title"):
                with_title += 1
                want = meta["title"].lower()
                titles += bool(title) and (title.lower() in want or want in title.lower())
            if meta.get("byline"):
                with_author += 1
                byline = meta["byline"].lower()
                authors += bool(author) and any(w in byline for w in author.lower().split()[:2])
        print(
            f"  {name:40} recall {_spread(recall)}  precision {_spread(precision)}"
            f"  title {titles}/{with_title}  author {authors}/{with_author}"
            f"  extract median {statistics.median(times):.0f} ms p90 {_p90(times):.0f} ms"
        )


def _spread(shares: list[float]) -> str:
    low = sum(share < 0.8 for share in shares)
    return (
        f"median {statistics.median(shares):.3f} mean {statistics.mean(shares):.3f} (<0.8: {low})"
    )


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main(argv: Sequence[str] = ()) -> int:
    runs = int(argv[0]) if argv else 30
    fetches, totals = asyncio.run(_speed(runs))
    size = ARTICLE.stat().st_size // 1000
    print(f"a {size} KB article served on 127.0.0.1, {runs} runs per extractor")
    fetch_median, fetch_p90 = statistics.median(fetches), _p90(fetches)
    print(f"  {'fetch alone':40} median {fetch_median:6.1f} ms  p90 {fetch_p90:6.1f} ms")
    for name, values in totals.items():
        median, p90 = statistics.median(values), _p90(values)
        print(f"  fetch + {name:32} median {median:6.1f} ms  p90 {p90:6.1f} ms")
    folder = os.environ.get("BRAINBOT_BENCH_READABILITY_PAGES")
    if folder:
        _quality(Path(folder))
    else:
        print("\nquality: set BRAINBOT_BENCH_READABILITY_PAGES to Readability's test/test-pages")
    chosen = statistics.median(totals[CHOSEN])
    if chosen > TARGET_MEDIAN_MS:
        print(f"MISSED: median {chosen:.0f} ms > {TARGET_MEDIAN_MS:.0f} ms")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
