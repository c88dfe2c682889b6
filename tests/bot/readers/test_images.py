"""The text in a photo becomes searchable (bot.readers.images): what a person would search
for is read from notes drawn in English, German and Japanese and from real photos and
screenshots; what is not an image, or is too large, is refused with a reason a person
can read, before any decoding."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from bot.readers.images import ImageUnreadable, OcrUnavailable, engine, image_text
from tests.fakes.text_pictures import FONT, NOTES, REAL_PHOTOS, char_error_rate, note_photo

ROOT = Path(__file__).parents[3]


@pytest.fixture(autouse=True, scope="module")
def _tesseract() -> None:
    try:
        engine()
    except OcrUnavailable as missing:
        pytest.skip(f"OCR is not installed here ({missing.reason}); `make test` installs it")


def _photo(file: str) -> bytes:
    return next(photo for photo in REAL_PHOTOS if photo.file == file).data()


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares its size and holds no pixels: only a header-first reader gets
    past it without an error about the image data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


# Measured (Tesseract 5.3, eng+deu+jpn+chi_sim): 0.0 for each language's note. The bound
# leaves room for a letter or two per note on another build of Tesseract.
NOTE_CER_MAX = 0.05


@pytest.mark.parametrize("language", ["en", "de", "ja", "zh"])
def test_a_photographed_note_is_read_in_its_language(language: str) -> None:
    lines = NOTES[language]
    text = image_text(note_photo(lines))
    assert char_error_rate("\n".join(lines), text) <= NOTE_CER_MAX, text


def test_german_words_keep_their_umlauts_and_sharp_s() -> None:
    words = image_text(note_photo(NOTES["de"])).split()
    for word in ("Größere", "Änderungen", "Straßenfest", "München", "Grüße", "prüfen"):
        assert word in words


def test_a_full_size_phone_photo_is_read() -> None:
    note = Image.open(io.BytesIO(note_photo(NOTES["de"])))
    out = io.BytesIO()
    note.resize((4000, 2867), Image.Resampling.LANCZOS).save(out, "JPEG", quality=90)
    assert "Straßenfest" in image_text(out.getvalue()).split()


def test_an_iphone_heic_photo_is_read() -> None:
    out = io.BytesIO()
    Image.open(io.BytesIO(note_photo(NOTES["en"]))).save(out, "HEIF", quality=80)
    assert out.getvalue()[4:12] == b"ftypheic"
    assert "plumber" in image_text(out.getvalue()).split()


def test_japanese_is_read_without_spaces_between_characters() -> None:
    text = image_text(note_photo(NOTES["ja"]))
    assert "会議室の予約を忘れないでね" in text
    assert "東京駅で午後三時に待ち合わせ" in text


def test_a_screenshot_of_a_paper_is_read_word_for_word() -> None:
    text = image_text(_photo("screenshot-paper-en.jpg"))
    assert "MovieShots" in text.split()
    assert "large-scale shot type annotation" in " ".join(text.split())


def test_a_poster_photo_gives_the_words_on_it() -> None:
    words = set(image_text(_photo("poster-who-en.jpg")).split())
    assert {"coronavirus", "soap", "water", "elbow", "symptoms"} <= words


def test_a_japanese_news_screenshot_is_read_closely() -> None:
    photo = next(p for p in REAL_PHOTOS if p.file == "screenshot-news-ja.jpg")
    text = image_text(photo.data())
    assert "伝統演劇" in text
    assert "関西万博" in text
    # Measured 0.04-0.05 (a long line's end and one katakana missed).
    assert char_error_rate(photo.text, text) <= 0.10, text


def test_the_printed_lines_of_a_street_sign_are_found() -> None:
    text = image_text(_photo("sign-minato-ja.jpg"))
    assert "NO LITTER" in text
    assert "清潔できれいな港区を" in text


def test_a_photo_taken_upside_down_is_turned_by_its_exif_orientation() -> None:
    assert Image.open(io.BytesIO(_photo("upside-down-exif-zh.jpg"))).getexif().get(274) == 3
    assert "我是中国" in image_text(_photo("upside-down-exif-zh.jpg"))


def test_a_screenshot_with_a_transparent_background_is_read_as_on_white() -> None:
    image = Image.new("RGBA", (900, 200), (0, 0, 0, 0))
    ImageDraw.Draw(image).text(
        (40, 60), "Invoice number 2026-117", font=ImageFont.truetype(FONT, 48), fill="black"
    )
    out = io.BytesIO()
    image.save(out, "PNG")
    assert "2026-117" in image_text(out.getvalue())


def test_a_photo_without_text_gives_nothing() -> None:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (90, 140, 200)).save(out, "JPEG")
    assert image_text(out.getvalue()) == ""


def test_an_image_over_the_limit_is_refused_from_its_header() -> None:
    with pytest.raises(ImageUnreadable) as refused:
        image_text(_png_header(5000, 5000))
    assert refused.value.reason == "the image is 5000×5000 pixels; I read at most 12 megapixels"  # noqa: RUF001
    with pytest.raises(ImageUnreadable, match="at most 2 megapixels"):
        image_text(note_photo(NOTES["en"], size=(2000, 1500)), max_pixels=2_000_000)


def test_an_image_past_pillows_own_bomb_limit_is_refused_with_its_size() -> None:
    with pytest.raises(ImageUnreadable) as refused:
        image_text(_png_header(40_000, 40_000))
    assert refused.value.reason == "the image is 1600 megapixels; I read at most 12 megapixels"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "the file is empty"),
        (b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n", "not an image"),
        (b"just some text, not a picture\n" * 20, "not an image"),
    ],
)
def test_what_is_not_an_image_is_refused(data: bytes, reason: str) -> None:
    with pytest.raises(ImageUnreadable) as refused:
        image_text(data)
    assert refused.value.reason == reason


def test_a_cut_off_photo_is_refused_as_damaged() -> None:
    data = _photo("poster-who-en.jpg")
    with pytest.raises(ImageUnreadable) as refused:
        image_text(data[: len(data) // 3])
    assert refused.value.reason == "the image is damaged"


def test_without_tesseract_the_reason_names_what_to_install() -> None:
    script = (
        "from bot.readers.images import OcrUnavailable, image_text\n"
        "from tests.fakes.text_pictures import NOTES, note_photo\n"
        "try:\n"
        "    image_text(note_photo(NOTES['en']))\n"
        "except OcrUnavailable as missing:\n"
        "    print(missing.reason)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PATH": str(ROOT / "no-such-dir")},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip().startswith(
        "Tesseract is not installed (apt-get install tesseract-ocr"
    )
