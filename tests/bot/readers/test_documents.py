"""A shared document becomes searchable text (bot.readers.documents): every page of a PDF,
a Word file's headings, paragraphs and tables, plain text in whatever encoding a phone
or an old PC wrote it. Kinds it does not read give None; a broken or locked file gives
a reason a person can read. A Word file is read as a stream, only as far as the
characters kept, nested no deeper than a real one, and never with entities."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from fpdf import FPDF

from bot.readers.documents import MAX_PAGES, DocumentUnreadable, document_text
from tests.fakes.hostile_files import docx_billion_laughs, docx_nested, docx_of, docx_of_63_mb_xml
from tests.fakes.text_pictures import FONT

DOCUMENTS = Path(__file__).parents[2] / "data" / "documents"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _pdf(pages: list[str]) -> bytes:
    pdf = FPDF()
    pdf.add_font("noto", fname=FONT)
    pdf.set_font("noto", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def _docx(build: object) -> bytes:
    document = docx.Document()
    build(document)  # type: ignore[operator]
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_word_on_page_three_of_a_pdf_is_in_the_text() -> None:
    data = _pdf(["Einleitung", "Zweite Seite", "Die Schlüsselübergabe ist am Freitag."])
    text = document_text(data, "Mietvertrag.pdf", "application/pdf")
    assert text is not None
    assert "Schlüsselübergabe" in text
    assert text.index("--- page 3 ---") < text.index("Schlüsselübergabe")
    assert text.index("Zweite Seite") < text.index("--- page 3 ---")


def test_japanese_in_a_pdf_is_read() -> None:
    text = document_text(_pdf(["会議の議事録：来週の火曜日に打ち合わせ"]), "議事録.pdf", None)  # noqa: RUF001
    assert text == "会議の議事録：来週の火曜日に打ち合わせ"  # noqa: RUF001


def test_a_real_latex_pdf_gives_every_page() -> None:
    text = document_text((DOCUMENTS / "pdflatex-outline.pdf").read_bytes(), "outline.pdf", None)
    assert text is not None
    assert "--- page 4 ---" in text
    assert "Hello, here is some text without a meaning." in text


def test_a_real_pdf_in_several_scripts_keeps_each() -> None:
    text = document_text((DOCUMENTS / "multilang.pdf").read_bytes(), "hello.pdf", None)
    assert text is not None
    for greeting in ("Hello World", "Привет, мир", "你好世界", "こんにちは世界", "مرحبا بالعالم"):
        assert greeting in text


def test_a_password_protected_pdf_says_so() -> None:
    data = (DOCUMENTS / "password-protected.pdf").read_bytes()
    with pytest.raises(DocumentUnreadable) as refused:
        document_text(data, "secret.pdf", "application/pdf")
    assert refused.value.reason == "the PDF is password-protected"


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + b"\x00garbage" * 100,
        b"<html>not a pdf at all</html>",
        b"",
    ],
)
def test_a_broken_pdf_says_it_is_not_readable(data: bytes) -> None:
    with pytest.raises(DocumentUnreadable) as refused:
        document_text(data, "scan.pdf", "application/pdf")
    assert refused.value.reason == "the file is not a readable PDF"


def test_a_pdf_cut_in_half_is_read_or_refused_never_crashes() -> None:
    whole = _pdf([f"Seite {n}" for n in range(1, 6)])
    try:
        text = document_text(whole[: len(whole) // 2], "half.pdf", None)
    except DocumentUnreadable as refused:
        assert refused.reason == "the file is not a readable PDF"
    else:
        assert text is not None


def test_pages_past_the_limit_are_not_read_and_that_is_said() -> None:
    data = _pdf([f"page-word-{n}" for n in range(1, MAX_PAGES + 6)])
    text = document_text(data, "long.pdf", None)
    assert text is not None
    assert f"page-word-{MAX_PAGES}" in text
    assert f"page-word-{MAX_PAGES + 1}" not in text
    assert text.endswith(f"[… only the first {MAX_PAGES} of {MAX_PAGES + 5} pages are read]")


def test_a_long_document_is_cut_with_a_line_that_says_so() -> None:
    text = document_text(
        ("Zeile mit Inhalt\n" * 10_000).encode(), "log.txt", "text/plain", max_chars=1_000
    )
    assert text is not None
    assert len(text) < 1_200
    assert text.endswith("[… cut here: only the first 1,000 characters are kept]")


def test_a_word_file_gives_headings_paragraphs_lists_and_tables_in_order() -> None:
    def build(document: docx.document.Document) -> None:
        document.add_heading("Umzug", level=0)
        document.add_heading("Größere Änderungen", level=2)
        document.add_paragraph("Kartons im Keller lagern.")
        document.add_paragraph("Milch und Brot", style="List Bullet")
        table = document.add_table(rows=2, cols=3)
        for cell, value in zip(table.rows[0].cells, ("Was", "Wer", "Preis"), strict=True):
            cell.text = value
        merged = table.cell(1, 0).merge(table.cell(1, 1))
        merged.text = "Umzugswagen"
        table.cell(1, 2).text = "350 €"
        document.add_paragraph("Schlüssel an Frau Weiß.")

    text = document_text(_docx(build), "umzug.docx", DOCX_MIME)
    assert text == (
        "# Umzug\n\n## Größere Änderungen\n\nKartons im Keller lagern.\n\n- Milch und Brot\n\n"
        "| Was | Wer | Preis |\n| Umzugswagen | 350 € |\n\nSchlüssel an Frau Weiß."
    )


def test_headings_of_a_word_in_another_language_are_found_by_their_style_name() -> None:
    # German Word names the style id "berschrift1"; its name stays "heading 1".
    def build(document: docx.document.Document) -> None:
        document.add_heading("Protokoll", level=1)

    data = _docx(build)
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            body = source.read(item)
            if item.filename in ("word/document.xml", "word/styles.xml"):
                body = body.replace(b'"Heading1"', b'"berschrift1"')
            target.writestr(item, body)
    assert document_text(out.getvalue(), "protokoll.docx", None) == "# Protokoll"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"PK\x03\x04 this zip is broken", "the file is not a readable Word document"),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
            "the Word document is password-protected",
        ),
    ],
)
def test_a_damaged_or_locked_word_file_says_why(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentUnreadable) as refused:
        document_text(data, "bericht.docx", DOCX_MIME)
    assert refused.value.reason == reason


def test_a_zip_named_docx_without_a_document_is_not_readable() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(DocumentUnreadable, match="not a readable Word document"):
        document_text(out.getvalue(), "fake.docx", None)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("Grüße aus Köln – 5 €".encode(), "Grüße aus Köln – 5 €"),  # noqa: RUF001
        ("\ufeffGrüße mit BOM".encode(), "Grüße mit BOM"),
        ("Grüße in UTF-16".encode("utf-16"), "Grüße in UTF-16"),
        ("Grüße aus Windows – 5 €".encode("cp1252"), "Grüße aus Windows – 5 €"),  # noqa: RUF001
        (b"Latin-1 \x81\x8d\xe9t\xe9", "Latin-1 \x81\x8dété"),
        (b"Zeile eins\r\nZeile zwei", "Zeile eins\nZeile zwei"),
    ],
)
def test_plain_text_is_decoded_whatever_wrote_it(data: bytes, expected: str) -> None:
    assert document_text(data, "notiz.txt", "text/plain") == expected


def test_markdown_is_kept_as_written() -> None:
    source = "# Einkauf\n\n- [ ] Äpfel\n- [x] Brot\n"
    assert document_text(source.encode(), "liste.md", None) == source
    assert document_text(source.encode(), "liste", "text/markdown; charset=utf-8") == source


@pytest.mark.parametrize(
    ("file_name", "mime_type", "data"),
    [
        ("archive.zip", "application/zip", b"PK\x03\x04\x14\x00\x00\x00"),
        ("song.mp3", "audio/mpeg", b"ID3\x04\x00\x00\x00\x00\x00\x00"),
        ("photo.jpg", "image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF"),
        ("report.doc", "application/msword", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"),
        ("binary.txt", "text/plain", b"\x00\x01\x02\x03" * 50),
    ],
)
def test_kinds_it_does_not_read_give_none(file_name: str, mime_type: str, data: bytes) -> None:
    assert document_text(data, file_name, mime_type) is None


def test_a_pdf_or_word_file_sent_with_a_wrong_name_is_still_read() -> None:
    text = document_text(_pdf(["Rechnung Nummer 4711"]), "download", "application/octet-stream")
    assert text == "Rechnung Nummer 4711"

    def build(document: docx.document.Document) -> None:
        document.add_paragraph("Angebot Nummer 815")

    assert document_text(_docx(build), "download", None) == "Angebot Nummer 815"


def test_a_note_about_pdfs_stays_a_note() -> None:
    note = b"# PDF internals\n\nEvery PDF starts with `%PDF-1.7`.\n"
    assert document_text(note, "pdf.md", "text/markdown") == note.decode()


def test_a_long_pdf_is_cut_at_the_limit_and_says_so() -> None:
    data = _pdf([f"Seite {n}: " + "Inhalt " * 200 for n in range(1, 40)])
    text = document_text(data, "lang.pdf", None, max_chars=5_000)
    assert text is not None
    assert "Seite 1:" in text
    assert "Seite 39:" not in text
    assert text.endswith("[… cut here: only the first 5,000 characters are kept]")


def _traced_peak(read: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_word_file_of_63_mb_of_xml_is_read_only_as_far_as_it_is_kept() -> None:
    data = docx_of_63_mb_xml()
    text: list[str | None] = []
    peak = _traced_peak(lambda: text.append(document_text(data, "big.docx", DOCX_MIME)))
    (read,) = text
    assert read is not None and read.startswith("word\n\nword\n\n")
    assert read.endswith("[… cut here: only the first 200,000 characters are kept]")
    # The text kept and the parser's buffers: not a tree of two million paragraphs.
    assert peak < 20_000_000, f"{peak:,} bytes"


def test_a_paragraph_longer_than_what_is_kept_is_cut_where_the_limit_falls() -> None:
    data = docx_of("<w:p><w:r><w:t>" + "lang " * 400_000 + "</w:t></w:r></w:p><w:p/>")
    text = document_text(data, "long.docx", DOCX_MIME, max_chars=10_000)
    assert text is not None and text.startswith("lang lang")
    assert len(text) < 10_100


def test_a_table_longer_than_what_is_kept_keeps_its_first_rows() -> None:
    row = "<w:tr><w:tc><w:p><w:r><w:t>Zelle</w:t></w:r></w:p></w:tc></w:tr>"
    data = docx_of("<w:tbl>" + row * 100_000 + "</w:tbl>")
    text = document_text(data, "table.docx", DOCX_MIME, max_chars=1_000)
    assert text is not None and text.startswith("| Zelle |\n| Zelle |")
    assert text.endswith("[… cut here: only the first 1,000 characters are kept]")


def test_a_word_file_nested_200000_deep_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(DocumentUnreadable) as refused:
        document_text(docx_nested(200_000), "deep.docx", DOCX_MIME)
    assert refused.value.reason == "the Word document is nested too deeply to read"


def test_content_controls_nested_as_deep_as_word_does_are_read() -> None:
    data = docx_nested(60)
    assert document_text(data, "controls.docx", DOCX_MIME) == "deep"


def test_a_word_file_declaring_entities_is_refused_before_any_is_expanded() -> None:
    with pytest.raises(DocumentUnreadable, match="not a readable Word document"):
        document_text(docx_billion_laughs(), "lol.docx", DOCX_MIME)
