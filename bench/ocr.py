"""Reading what a message shares (bot.enrich): OCR of photos, text of documents.

OCR (bot.readers.images, Tesseract): the time to read a ~1-megapixel phone photo of a
printed note (the four notes of tests/fakes/text_pictures.py: English, German,
Japanese, Chinese; median and p90 over all runs), the character error rate (CER,
whitespace ignored) per language on those notes, and the CER of each real photo in
tests/data/photos (documents and screenshots, a poster, three street signs).
Targets: median ≤ TARGET_OCR_SECONDS, each note's CER ≤ TARGET_NOTE_CER.

When rapidocr-onnxruntime (1.4.x, the PaddleOCR models inside the wheel) is installed,
the same figures are printed for it, as the comparison the engine was chosen by; it is
not a dependency (`pip install 'rapidocr-onnxruntime>=1.4,<1.5'` to see them).

Documents (bot.readers.documents): the median time to extract a 20-page PDF (PDFium), and
the same PDF with pypdf and pdfminer.six when those are installed; a 40-section DOCX.

Run: `python -m bench.ocr [runs]` (default 5 runs of each note).
"""

from __future__ import annotations

import io
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from PIL import Image

from bot.readers.documents import document_text
from bot.readers.images import OcrUnavailable, engine, image_text
from tests.fakes.text_pictures import (
    FONT,
    NOTES,
    REAL_PHOTOS,
    char_error_rate,
    note_photo,
    words_found,
)

TARGET_OCR_SECONDS = 2.0
TARGET_NOTE_CER = 0.05
PDF_PAGES = 20


def _timed(read: Callable[[], str], runs: int) -> tuple[list[float], str]:
    times, text = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        text = read()
        times.append(time.perf_counter() - started)
    return times, text


def _p90(times: list[float]) -> float:
    return statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]


def _words(language: str, lines: Sequence[str], text: str) -> str:
    """Words found, for the languages written with spaces between words."""
    if language in ("ja", "zh"):
        return ""
    return f", words found {words_found(' '.join(lines), text):.0%}"


def _ocr_report(
    name: str, read: Callable[[bytes], str], runs: int
) -> tuple[float, dict[str, float]]:
    all_times: list[float] = []
    cers: dict[str, float] = {}
    for language, lines in NOTES.items():
        photo = note_photo(lines)
        times, text = _timed(lambda photo=photo: read(photo), runs)  # type: ignore[misc]
        all_times += times
        cers[language] = char_error_rate("\n".join(lines), text)
        print(
            f"  {name} note {language}: CER {cers[language]:.3f}{_words(language, lines, text)}, "
            f"median {statistics.median(times):.2f} s"
        )
    for real in REAL_PHOTOS:
        times, text = _timed(lambda real=real: read(real.data()), 1)  # type: ignore[misc]
        print(
            f"  {name} {real.kind:<10} {real.file:<26} ({real.language}): "
            f"CER {char_error_rate(real.text, text):.3f}"
            f"{_words(real.language, (real.text,), text)}, {times[0]:.2f} s"
        )
    note = Image.open(io.BytesIO(note_photo(NOTES["de"])))
    out = io.BytesIO()
    note.resize((4000, 2867), Image.Resampling.LANCZOS).save(out, "JPEG", quality=90)
    times, text = _timed(lambda: read(out.getvalue()), runs)
    print(
        f"  {name} 12-MP phone photo (de): median {statistics.median(times):.2f} s, "
        f"CER {char_error_rate(chr(10).join(NOTES['de']), text):.3f}"
    )
    median = statistics.median(all_times)
    print(
        f"  {name}: 1-MP photo of text, median {median:.2f} s, p90 {_p90(all_times):.2f} s "
        f"({len(all_times)} reads)"
    )
    return median, cers


def _rapidocr() -> Callable[[bytes], str] | None:
    try:
        import numpy as np
        from PIL import ImageOps
        from rapidocr_onnxruntime import RapidOCR  # type: ignore[import-not-found]
    except ImportError:
        return None
    rapid = RapidOCR()

    def read(data: bytes) -> str:
        image = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
        result, _ = rapid(np.asarray(image)[:, :, ::-1])
        return "\n".join(row[1] for row in result or [])

    return read


def _pdf(pages: int, embedded_font: bool) -> bytes:
    """With the Noto OpenType (CFF) font embedded, or with the standard Helvetica."""
    from fpdf import FPDF

    pdf = FPDF()
    if embedded_font:
        pdf.add_font("noto", fname=FONT)
        pdf.set_font("noto", size=11)
    else:
        pdf.set_font("helvetica", size=11)
    for page in range(1, pages + 1):
        pdf.add_page()
        pdf.multi_cell(
            0,
            6,
            f"Seite {page}: Größere Änderungen, word{page:03d}. " + "Lorem ipsum dolor. " * 120,
        )
    return bytes(pdf.output())


def _other_pdf_readers() -> dict[str, Callable[[bytes], str]]:
    readers: dict[str, Callable[[bytes], str]] = {}
    try:
        import pypdf

        readers["pypdf"] = lambda data: "\n".join(
            page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages
        )
    except ImportError:
        pass
    try:
        from pdfminer.high_level import extract_text

        readers["pdfminer.six"] = lambda data: extract_text(io.BytesIO(data))
    except ImportError:
        pass
    return readers


def _docx() -> bytes:
    import docx

    document = docx.Document()
    for section in range(40):
        document.add_heading(f"Abschnitt {section}", level=1)
        for paragraph in range(10):
            document.add_paragraph(f"Absatz {paragraph}: Größere Änderungen am Dachboden. " * 5)
        table = document.add_table(rows=5, cols=3)
        for row in table.rows:
            for cell in row.cells:
                cell.text = "Straße"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _documents_report(runs: int) -> None:
    ours = lambda data: document_text(data, "bench.pdf", "application/pdf") or ""  # noqa: E731
    for font in ("Helvetica", "embedded OpenType"):
        data = _pdf(PDF_PAGES, embedded_font=font != "Helvetica")
        for name, read in {"PDFium (ours)": ours, **_other_pdf_readers()}.items():
            read(data)
            times, text = _timed(lambda read=read, data=data: read(data), runs)  # type: ignore[misc]
            found = all(f"word{page:03d}" in text for page in range(1, PDF_PAGES + 1))
            umlauts = "Größere Änderungen" in text
            print(
                f"  {name}: {PDF_PAGES}-page PDF ({font}), median "
                f"{statistics.median(times) * 1000:.0f} ms; every page's word found: {found}; "
                f"umlauts kept: {umlauts}"
            )
    word = _docx()
    times, text = _timed(lambda: document_text(word, "bench.docx", None) or "", runs)
    print(
        f"  DOCX, 40 sections (400 paragraphs, 40 tables): median "
        f"{statistics.median(times) * 1000:.0f} ms, {len(text):,} characters"
    )


def main(argv: Sequence[str] = ()) -> int:
    runs = int(argv[0]) if argv else 5
    try:
        started = time.perf_counter()
        found = engine()
        seconds = time.perf_counter() - started
        print(f"OCR: {found.binary} -l {found.languages} (found in {seconds:.2f} s)")
    except OcrUnavailable as missing:
        print(f"OCR: not available here: {missing.reason}")
        return 1
    median, cers = _ocr_report("tesseract", image_text, runs)
    rapid = _rapidocr()
    if rapid is None:
        print("  (rapidocr-onnxruntime is not installed: no comparison)")
    else:
        _ocr_report("rapidocr", rapid, runs)
    print("Documents:")
    _documents_report(runs)
    worst = max(cers, key=lambda language: cers[language])
    print(
        f"ocr: median {median:.2f} s per 1-MP photo (target ≤ {TARGET_OCR_SECONDS:g} s), worst "
        f"note CER {cers[worst]:.3f} ({worst}; target ≤ {TARGET_NOTE_CER:g})"
    )
    return 0 if median <= TARGET_OCR_SECONDS and cers[worst] <= TARGET_NOTE_CER else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
