"""The searchable text of a document someone shares: a PDF, a Word file (DOCX), plain
text or Markdown. Other kinds (a zip, an mp3, an image) are not read here: None.

PDFs are read with PDFium (pypdfium2), chosen by measurement over pypdf and
pdfminer.six (`bench.ocr`): a 20-page PDF in 11-14 ms against 39-174 ms and 79-455 ms,
and the only one of the three that read text set in an embedded OpenType (CFF) font,
which fpdf2 and others write (pypdf gave UTF-16 with NULs, pdfminer nothing); it also expands
ligatures ("misfits", not "misﬁts") and keeps Arabic in reading order. PDFium is not
thread-safe, so one lock serialises it.

DOCX is read from its XML with the standard library: 4 ms for a 40-section document
where python-docx took 420 ms (it resolves every paragraph's style object and rebuilds
each table row's cells), and one dependency (with lxml) fewer. Paragraphs and tables
come in document order; headings become Markdown `#`, table rows `| a | b |`.

Pure and synchronous: the caller runs it in a thread.
"""

from __future__ import annotations

import io
import re
import threading
import time
import zipfile
from pathlib import PurePath
from xml.etree import ElementTree

import pypdfium2 as pdfium

MAX_PAGES = 300
PDF_SECONDS = 30.0
# A DOCX is a zip: its XML is size-checked before it is inflated, against a zip bomb.
DOCX_XML_MAX_BYTES = 64 * 1024 * 1024

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TEXT_SUFFIXES = {".txt", ".text", ".md", ".markdown", ".mdown"}
TEXT_MIMES = {"text/plain", "text/markdown", "text/x-markdown"}
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an encrypted DOCX is an OLE file
_FPDF_ERR_PASSWORD = 4
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

_pdfium_lock = threading.Lock()


class DocumentUnreadable(Exception):
    """A document of a kind this reader knows that cannot be read; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _kind(data: bytes, file_name: str, mime_type: str | None) -> str | None:
    """What the bytes are, then what the name and type say, then a look inside: a PDF
    or a Word file sent as "download" with no type is still read; a Markdown note that
    mentions "%PDF-" stays a note."""
    suffix = PurePath(file_name).suffix.lower()
    mime = (mime_type or "").split(";")[0].strip().lower()
    if data.startswith(b"%PDF-"):
        return "pdf"
    if suffix == ".docx" or mime == DOCX_MIME:
        return "docx"
    if suffix in TEXT_SUFFIXES or mime in TEXT_MIMES:
        return "text"
    if suffix == ".pdf" or mime == "application/pdf" or b"%PDF-" in data[:1024]:
        return "pdf"  # one that only claims to be a PDF is said to be unreadable, not skipped
    if data.startswith(b"PK\x03\x04") and _has_word_document(data):
        return "docx"
    return None


def _has_word_document(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def _truncated(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    # A long PDF is not read past the limit, so its full length is not known here.
    return (
        text[:max_chars].rstrip()
        + f"\n\n[… cut here: only the first {max_chars:,} characters are kept]"
    )


def _pdf_text(data: bytes, max_chars: int) -> str:
    if b"%PDF-" not in data[:1024]:
        raise DocumentUnreadable("the file is not a readable PDF")
    with _pdfium_lock:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) == _FPDF_ERR_PASSWORD:
                raise DocumentUnreadable("the PDF is password-protected") from exc
            raise DocumentUnreadable("the file is not a readable PDF") from exc
        try:
            return _pdf_pages(pdf, max_chars)
        except pdfium.PdfiumError as exc:
            raise DocumentUnreadable("the file is not a readable PDF") from exc
        finally:
            pdf.close()


def _pdf_pages(pdf: pdfium.PdfDocument, max_chars: int) -> str:
    """Each page under a `--- page N ---` line; the pages and the time are bounded."""
    pages = len(pdf)
    deadline = time.monotonic() + PDF_SECONDS
    parts: list[str] = []
    length = 0
    for index in range(min(pages, MAX_PAGES)):
        if time.monotonic() > deadline:
            parts.append(f"[… stopped after {index} of {pages} pages: {PDF_SECONDS:g} s passed]")
            break
        if length > max_chars:
            break  # the rest would be cut anyway
        page = pdf[index]
        try:
            textpage = page.get_textpage()
            try:
                raw = textpage.get_text_range()
            finally:
                textpage.close()
        finally:
            page.close()
        text = "\n".join(line.rstrip() for line in raw.replace("\r\n", "\n").split("\n"))
        text = text.replace("\x00", "").strip()
        part = f"--- page {index + 1} ---\n{text}" if pages > 1 else text
        parts.append(part)
        length += len(part) + 2
    else:
        if pages > MAX_PAGES:
            parts.append(f"[… only the first {MAX_PAGES} of {pages} pages are read]")
    return "\n\n".join(parts).strip()


def _docx_text(data: bytes) -> str:
    if data.startswith(_OLE_MAGIC):
        raise DocumentUnreadable("the Word document is password-protected")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "word/document.xml" not in names:
                raise DocumentUnreadable("the file is not a readable Word document")
            for name in ("word/document.xml", "word/styles.xml"):
                if name in names and archive.getinfo(name).file_size > DOCX_XML_MAX_BYTES:
                    raise DocumentUnreadable("the Word document unpacks to too much text to read")
            body_xml = archive.read("word/document.xml")
            styles_xml = archive.read("word/styles.xml") if "word/styles.xml" in names else None
        styles = _style_levels(styles_xml)
        body = ElementTree.fromstring(body_xml).find(f"{_W}body")
    except DocumentUnreadable:
        raise
    except (zipfile.BadZipFile, ElementTree.ParseError, OSError, ValueError, EOFError) as exc:
        raise DocumentUnreadable("the file is not a readable Word document") from exc
    if body is None:
        raise DocumentUnreadable("the file is not a readable Word document")
    return "\n\n".join(block for block in _docx_blocks(body, styles) if block).strip()


_LIST = 0  # the "level" of a list style: its paragraphs become "- " items


def _style_levels(styles_xml: bytes | None) -> dict[str, int]:
    """Style id → heading level (Title is 1), or _LIST for a list style. Ids are
    localised ("berschrift1" in a German Word), the names of built-in styles are not
    ("heading 1")."""
    levels: dict[str, int] = {"Title": 1, **{f"Heading{n}": n for n in range(1, 10)}}
    if styles_xml is None:
        return levels
    for style in ElementTree.fromstring(styles_xml).iter(f"{_W}style"):
        style_id = style.get(f"{_W}styleId")
        name_element = style.find(f"{_W}name")
        name = (name_element.get(f"{_W}val") or "") if name_element is not None else ""
        match = re.fullmatch(r"heading ([1-9])", name.lower())
        if not style_id:
            continue
        if match:
            levels[style_id] = int(match.group(1))
        elif name.lower() == "title":
            levels[style_id] = 1
        elif name.lower().startswith("list") or style.find(f"{_W}pPr/{_W}numPr") is not None:
            levels[style_id] = _LIST
    return levels


def _docx_blocks(parent: ElementTree.Element, styles: dict[str, int]) -> list[str]:
    """Paragraphs and tables in document order (content controls are looked into)."""
    blocks: list[str] = []
    for child in parent:
        if child.tag == f"{_W}p":
            blocks.append(_paragraph(child, styles))
        elif child.tag == f"{_W}tbl":
            blocks.append(_table(child))
        elif child.tag == f"{_W}sdt":
            content = child.find(f"{_W}sdtContent")
            if content is not None:
                blocks.extend(_docx_blocks(content, styles))
    return blocks


def _runs_text(paragraph: ElementTree.Element) -> str:
    parts: list[str] = []
    for element in paragraph.iter():
        if element.tag == f"{_W}t":
            parts.append(element.text or "")
        elif element.tag == f"{_W}tab":
            parts.append("\t")
        elif element.tag in (f"{_W}br", f"{_W}cr"):
            parts.append("\n")
    return "".join(parts)


def _paragraph(paragraph: ElementTree.Element, styles: dict[str, int]) -> str:
    text = _runs_text(paragraph).strip()
    if not text:
        return ""
    properties = paragraph.find(f"{_W}pPr")
    style = properties.find(f"{_W}pStyle") if properties is not None else None
    style_id = (style.get(f"{_W}val") or "") if style is not None else ""
    level = styles.get(style_id)
    if level is not None and level != _LIST:
        return "#" * min(level, 6) + " " + " ".join(text.split())
    if level == _LIST or (properties is not None and properties.find(f"{_W}numPr") is not None):
        return f"- {text}"
    return text


def _table(table: ElementTree.Element) -> str:
    """One line per row, cells joined by " | "; a cell merged downwards is said once."""
    rows: list[str] = []
    for row in table.findall(f"{_W}tr"):
        cells = [
            " ".join(" ".join(_runs_text(p) for p in cell.iter(f"{_W}p")).split())
            for cell in row.findall(f"{_W}tc")
        ]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _plain_text(data: bytes) -> str:
    """UTF-8 (with or without BOM), UTF-16 with a BOM, else cp1252, else Latin-1."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", "replace")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def document_text(
    data: bytes, file_name: str, mime_type: str | None, *, max_chars: int = 200_000
) -> str | None:
    """The searchable text of a PDF, DOCX, plain text or Markdown file; None for another kind.

    Text longer than `max_chars` is cut, with a line saying so. Raises
    DocumentUnreadable for a broken or password-protected PDF or a damaged DOCX.
    """
    kind = _kind(data, file_name, mime_type)
    if kind is None:
        return None
    if kind == "pdf":
        text = _pdf_text(data, max_chars)
    elif kind == "docx":
        text = _docx_text(data)
    else:
        if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return None  # named .txt, but binary: nothing a person would search
        text = _plain_text(data)
    return _truncated(text, max_chars)
