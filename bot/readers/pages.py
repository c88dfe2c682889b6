"""The main text of a fetched page, as Markdown, with what a note says about its source.

CPU work (reading a 244 KB article takes ~0.1 s; a 5 MB page of tiny elements took
16 s and 615 MB): the bot runs `read_page` in a reader process (bot.readers.pool).
The extractor is trafilatura, chosen by measurement (bench/fetch.py) against
readability-lxml + markdownify on 53 of Mozilla Readability's test pages, whose expected
text is Readability's own: median recall 0.983 against 0.993, precision 0.997 both,
fewer pages under 0.8 recall (2 against 5), and twice as fast (fetch and read of the
article: 111 ms median against 248 ms); it writes Markdown itself (headings, lists,
code, tables) and finds the author (29 of 40) and the date, which readability-lxml
does not. Its fast mode (no fallback extractors) loses nothing measurable there.

Text is decoded the way browsers do: a byte-order mark, then the charset the server
named, then the page's own `<meta charset>`, then UTF-8, then detection; the Japanese
and Chinese legacy names map to the codecs browsers actually use (Shift_JIS is
Windows-31J), so pages from before UTF-8 come out right.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import charset_normalizer

# Appended where a long page is cut, so a reader of the note knows it goes on.
CUT_MARK = "\n\n[…the page goes on; the rest is not kept]"
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})

# WHATWG's encoding labels where Python's codec of the same name decodes less than a
# browser does (Shift_JIS pages use Windows-31J's extra characters, Latin-1 pages
# Windows-1252's quotes).
_BROWSER_CODEC = {
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "euc-jp": "euc_jis_2004",
    "x-euc-jp": "euc_jis_2004",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "big5": "big5hkscs",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "euc-kr": "cp949",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE
)
_XML_ENCODING = re.compile(r"""^\s*<\?xml[^>]*\?>""")
_HTML_LANG = re.compile(r"""<html[^>]*?\slang\s*=\s*["']?([A-Za-z]{2,3})\b""", re.IGNORECASE)
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_CITATION = re.compile(r"<sup>\\\[[^\]<]{1,12}\\\]</sup>")
_INLINE_TAG = re.compile(r"</?(?:sup|sub)>")
_EDIT_LINK = re.compile(r"\\\[edit\\\]$", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Page:
    """What a note keeps of a page: where it is from and its main text."""

    title: str | None
    author: str | None
    published: str | None  # YYYY-MM-DD
    site: str | None  # the site's name, else its host
    language: str | None  # "en", "ja": the page's own declaration
    text: str  # the main text as Markdown: no navigation, ads or comments


def read_page(
    data: bytes,
    url: str,
    charset: str | None = None,
    *,
    max_chars: int = 100_000,
    content_type: str | None = None,
) -> Page:
    """The main text and metadata of a page (HTML, plain text or Markdown).

    `charset` is the one the server named, if any; `content_type` the MIME type
    without parameters (None: told apart by the first bytes). The text is cut at a
    paragraph boundary near `max_chars`, with CUT_MARK after it. Raises ValueError
    for a type that is not a page (a PDF is read elsewhere).
    """
    kind = content_type or ("text/html" if _looks_like_html(data) else "text/plain")
    if kind in HTML_TYPES:
        return _read_html(decode(data, charset, html=True), url, max_chars)
    if kind in TEXT_TYPES:
        return _read_text(decode(data, charset, html=False), url, max_chars)
    raise ValueError(f"read_page reads HTML, plain text and Markdown, not {kind}")


def decode(data: bytes, charset: str | None, *, html: bool) -> str:
    """Bytes to text as a browser would: BOM, the server's charset, the page's
    `<meta charset>` (HTML only), UTF-8, then detection."""
    for bom, with_bom in _BOMS:
        if data.startswith(bom):
            return data.decode(with_bom, errors="replace")
    declared = [charset] if charset else []
    if html and (meta := _META_CHARSET.search(data[:4096])):
        declared.append(meta.group(1).decode("ascii"))
    for name in [*declared, "utf-8"]:
        codec = _codec(name)
        if codec is None:
            continue
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    best = charset_normalizer.from_bytes(data).best()
    if best is not None:
        return data.decode(_codec(best.encoding) or best.encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def _codec(name: str) -> str | None:
    label = name.strip().lower()
    try:
        return codecs.lookup(_BROWSER_CODEC.get(label, label)).name
    except LookupError:
        return None


def _looks_like_html(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<!--")) or (
        b"<body" in head or b"<p>" in head
    )


def _read_html(html: str, url: str, max_chars: int) -> Page:
    # Imported here: the bot's own process only hands pages to a reader (bot.readers.pool).
    from trafilatura import extract_with_metadata, html2txt

    # lxml refuses text that still declares its bytes' encoding; it is decoded now.
    html = _XML_ENCODING.sub("", html, count=1)
    document = extract_with_metadata(
        html,
        url=url,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_images=False,
        # No second opinion from its fallback extractors: as much of the text on
        # Readability's test pages (bench/fetch.py), in less time on long ones.
        fast=True,
        # The page's own publication date, not the newest date found in its text.
        date_extraction_params={"extensive_search": False, "original_date": True},
    )
    if document is not None and document.text:
        text = _tidy(_FRONT_MATTER.sub("", document.text, count=1))
    else:
        text = html2txt(html).strip()  # too short for the extractor: all the page says
    language = _HTML_LANG.search(html[:4096])
    return Page(
        title=(document.title or None) if document else None,
        author=(document.author or None) if document else None,
        published=(document.date or None) if document else None,
        site=(document.sitename if document and document.sitename else None) or _host(url),
        language=language.group(1).lower() if language else None,
        text=cut(text, max_chars),
    )


def markdown_of_html(html: str) -> str:
    """All the text of an HTML mail as Markdown (links, lists, emphasis kept), rather
    than a page's main part: a mail has no menus to leave out. Plain text where the HTML
    is too small for the Markdown reader."""
    from trafilatura import extract, html2txt
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "0")
    config.set("DEFAULT", "MIN_OUTPUT_SIZE", "0")
    found = extract(
        html,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        favor_recall=True,
        config=config,
    )
    text = found or html2txt(html) or ""
    return _BLANK_LINES.sub("\n\n", text).strip()


def _read_text(text: str, url: str, max_chars: int) -> Page:
    text = text.replace("\r\n", "\n").strip()
    heading = _HEADING.search(text)
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    title = heading.group(1) if heading else first_line[:200] or None
    return Page(
        title=title, author=None, published=None, site=_host(url), language=None,
        text=cut(text, max_chars),
    )  # fmt: skip


def _tidy(markdown: str) -> str:
    """What the extractor leaves of Wikipedia-style pages: citation marks `[1]`, the
    `[edit]` of each heading, and <sup>/<sub> kept as HTML."""
    markdown = _CITATION.sub("", markdown)
    markdown = _EDIT_LINK.sub("", markdown)
    return _INLINE_TAG.sub("", markdown).strip()


def cut(text: str, max_chars: int) -> str:
    """`text` if it fits, else its start up to the last paragraph break within
    `max_chars` (a line or word break when a paragraph is longer), then CUT_MARK."""
    if len(text) <= max_chars:
        return text
    room = max(max_chars - len(CUT_MARK), 0)
    head = text[:room]
    for boundary in ("\n\n", "\n", " "):
        at = head.rfind(boundary)
        if at >= room // 2:
            head = head[:at]
            break
    return head.rstrip() + CUT_MARK


def _host(url: str) -> str | None:
    host = urlsplit(url).hostname
    return host.removeprefix("www.") if host else None
