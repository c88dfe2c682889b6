"""bot.readers.pages on saved pages: the main text as Markdown, metadata, any charset."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.readers.pages import CUT_MARK, read_page

PAGES = Path(__file__).parents[2] / "data" / "pages"
JAPANESE = (PAGES / "japanese-green-tea.sjis.html").read_bytes()
TEA_URL = "https://tea.example.jp/ryokucha"


def _as_euc_jp(sjis_page: bytes) -> bytes:
    text = sjis_page.decode("cp932").replace("charset=Shift_JIS", "charset=EUC-JP")
    return text.encode("euc_jp")


@pytest.mark.parametrize(
    ("data", "charset"),
    [
        (JAPANESE, "shift_jis"),  # named by the server
        (JAPANESE, None),  # named by <meta> only
        (JAPANESE.replace(b"; charset=Shift_JIS", b""), None),  # named nowhere: detected
        (_as_euc_jp(JAPANESE), None),
        (_as_euc_jp(JAPANESE), "euc-jp"),
    ],
)
def test_a_japanese_page_reads_right_in_any_legacy_charset(
    data: bytes, charset: str | None
) -> None:
    page = read_page(data, TEA_URL, charset)
    assert page.title == "緑茶の淹れ方"
    assert page.language == "ja"
    assert "七十度くらいまで冷ましてから急須に注ぎましょう。" in page.text
    assert "## 用意するもの" in page.text
    assert "- 茶葉（一人分で小さじ二杯）" in page.text  # noqa: RUF001


def test_navigation_footer_and_adverts_are_left_out() -> None:
    text = read_page(JAPANESE, TEA_URL, "shift_jis").text
    for boilerplate in ("お問い合わせ", "無断転載", "広告"):
        assert boilerplate not in text


def test_a_wikipedia_article_comes_out_as_markdown_without_citation_marks() -> None:
    page = read_page(
        (PAGES / "wikipedia-mozilla.html").read_bytes(), "https://en.wikipedia.org/wiki/Mozilla"
    )
    assert page.title == "Mozilla"
    assert page.language == "en"
    assert page.text.startswith("# Mozilla")
    assert "**Mozilla** is a free-software community, created in 1998" in page.text
    assert "\n## History\n" in page.text
    assert "[edit]" not in page.text and "<sup>" not in page.text
    assert "Log in" not in page.text  # the site's navigation


def test_a_blog_post_names_its_site_and_date() -> None:
    page = read_page(
        (PAGES / "v8-blog-standalone-wasm.html").read_bytes(),
        "https://v8.dev/blog/emscripten-standalone-wasm",
        "utf-8",
    )
    assert page.title == "Outside the web: standalone WebAssembly binaries using Emscripten"
    assert (page.published, page.site) == ("2019-11-21", "v8.dev")
    assert "```\n// add.c\n" in page.text  # code stays a code block


def test_a_long_page_is_cut_at_a_paragraph_with_a_mark() -> None:
    data = (PAGES / "wikipedia-mozilla.html").read_bytes()
    whole = read_page(data, "https://en.wikipedia.org/wiki/Mozilla").text
    short = read_page(data, "https://en.wikipedia.org/wiki/Mozilla", max_chars=2_000).text
    assert len(short) <= 2_000
    assert short.endswith(CUT_MARK)
    kept = short.removesuffix(CUT_MARK)
    assert whole.startswith(kept)
    assert whole[len(kept) : len(kept) + 2] == "\n\n"  # the cut falls between paragraphs


def test_a_markdown_page_is_its_own_text_titled_by_its_first_heading() -> None:
    data = "Intro line\n\n# Brewing notes\n\nWater at 70 °C.\n".encode()
    page = read_page(data, "https://notes.example.org/tea.md", content_type="text/markdown")
    assert page.title == "Brewing notes"
    assert page.text == "Intro line\n\n# Brewing notes\n\nWater at 70 °C."
    assert page.site == "notes.example.org"


def test_a_plain_text_page_is_titled_by_its_first_line() -> None:
    data = "\n  RFC-ish memo: tea\nbody\n".encode("cp1252")
    page = read_page(
        data, "http://www.example.org/memo.txt", "iso-8859-1", content_type="text/plain"
    )
    assert (page.title, page.site) == ("RFC-ish memo: tea", "example.org")


def test_a_pdf_is_not_read_as_a_page() -> None:
    with pytest.raises(ValueError, match="application/pdf"):
        read_page(b"%PDF-1.7", "https://example.org/a.pdf", content_type="application/pdf")
