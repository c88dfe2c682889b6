"""The searchable text of a document someone shares: a PDF, a Word file (DOCX), plain
text or Markdown. Other kinds (a zip, an mp3, an image) are not read here: None.

PDFs are read with PDFium (pypdfium2), chosen by measurement over pypdf and
pdfminer.six (`bench.ocr`): a 20-page PDF in 11-14 ms against 39-174 ms and 79-455 ms,
and the only one of the three that read text set in an embedded OpenType (CFF) font,
which fpdf2 and others write (pypdf gave UTF-16 with NULs, pdfminer nothing); it also expands
ligatures ("misfits", not "misﬁts") and keeps Arabic in reading order. PDFium is not
thread-safe, so one lock serialises it.

DOCX is read as a stream by bot.readers.word.

Pure and synchronous, and not bounded in memory by itself (one PDF page's content
stream may inflate to gigabytes): the bot runs it in a reader process (bot.readers.pool).
"""

from __future__ import annotations

import io
import threading
import time
import zipfile
from pathlib import PurePath

import pypdfium2 as pdfium

from bot.readers.unreadable import DocumentUnreadable
from bot.readers.word import docx_text

MAX_PAGES = 300
# Pages are read until this much time has passed, within the reader's own time limit
# (BRAINBOT_READ_TIMEOUT, 30 s): what was read by then is kept.
PDF_SECONDS = 20.0

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TEXT_SUFFIXES = {".txt", ".text", ".md", ".markdown", ".mdown"}
TEXT_MIMES = {"text/plain", "text/markdown", "text/x-markdown"}
_FPDF_ERR_PASSWORD = 4

_pdfium_lock = threading.Lock()


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

    Text longer than `max_chars` is cut, with a line saying so (a PDF or a Word file is
    not read much past it). Raises DocumentUnreadable for a broken or password-protected
    PDF or a damaged DOCX.
    """
    kind = _kind(data, file_name, mime_type)
    if kind is None:
        return None
    if kind == "pdf":
        text = _pdf_text(data, max_chars)
    elif kind == "docx":
        text = docx_text(data, max_chars)
    else:
        if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return None  # named .txt, but binary: nothing a person would search
        text = _plain_text(data)
    return _truncated(text, max_chars)
