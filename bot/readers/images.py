"""The text in a photo someone sends (a whiteboard, a receipt, a screenshot, a sign), read
on this machine's CPU so that the note becomes searchable by what the picture says.

The engine is Tesseract 5 from the system's packages (Debian: tesseract-ocr plus the
deu, jpn and chi-sim language packs), run as a subprocess. It was chosen by
measurement against RapidOCR (the PaddleOCR models in the rapidocr-onnxruntime wheel):
on rendered text Tesseract read English, German, Japanese and Chinese with a character
error rate of 0, where RapidOCR's only shipped recogniser (Chinese + English) turned
"Grüße" into "GruBe" (CER 0.09), lost most Japanese kana (CER 0.68) and ran English
words together ("Cleanhandswithsoapandwater": 2% of a poster's words found, against
100%), which defeats a word search. RapidOCR reads street signs better (CER 0.12-0.30
against 0.43-0.91); Tesseract reads what people file (documents, screenshots, notes)
far better, at 0.6 s for a 1-MP photo. `bench.ocr` prints both.

Pure and synchronous: the bot runs it in a reader process (bot.readers.pool), under its
memory and time limits, which Tesseract inherits. Nothing is fetched at run time.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import threading
import warnings
from dataclasses import dataclass

import pillow_heif
from PIL import Image, ImageOps, UnidentifiedImageError

from bot.readers.unreadable import Unreadable

# An iPhone sends its photos as HEIC when they go as a file: Pillow reads them once
# libheif (inside the pillow-heif wheel) is registered with it.
pillow_heif.register_heif_opener()

# Tried in this order, all at once: one pass reads a German note with a Japanese line.
# English first, as Tesseract leans on its first language where two could fit.
LANGUAGES = ("eng", "deu", "jpn", "chi_sim")
# Tesseract reads well at 20-40 px per line of text: a phone photo is cut down to this
# long side (it is also what keeps a 12 MP photo near 1 s), a small screenshot raised.
LONG_SIDE_MAX = 2000
LONG_SIDE_MIN = 1200
UPSCALE_MAX = 4.0
# Within the reader's own time limit (BRAINBOT_READ_TIMEOUT, 30 s), so that the person
# hears this reason rather than the reader's.
OCR_TIMEOUT_SECONDS = 25.0
DEBIAN_PACKAGES = "tesseract-ocr tesseract-ocr-deu tesseract-ocr-jpn tesseract-ocr-chi-sim"

# A space Tesseract puts between two CJK characters is not in the text: Japanese and
# Chinese are written without them, and a search for 会議室 must find it.
_CJK = r"\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) +(?=[{_CJK}])")


class ImageUnreadable(Unreadable):
    """The bytes are not an image this reader will read; `reason` says why, for a person."""


class OcrUnavailable(Unreadable):
    """No OCR engine can run on this machine; `reason` says what to install."""


@dataclass(frozen=True, slots=True)
class Tesseract:
    """The Tesseract program found here and the models it will read with."""

    binary: str
    languages: str  # "eng+deu+jpn+chi_sim", those installed

    def read(self, png: bytes) -> str:
        # One thread per call: the caller may run several photos at once on few cores,
        # and Tesseract's OpenMP threads would only fight over them.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(
                [self.binary, "stdin", "stdout", "-l", self.languages, "--psm", "3"],
                input=png,
                capture_output=True,
                timeout=OCR_TIMEOUT_SECONDS,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ImageUnreadable(
                f"reading the text took longer than {OCR_TIMEOUT_SECONDS:g} s"
            ) from exc
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ImageUnreadable(
                "the OCR engine could not read it" + (f" ({detail[-1]})" if detail else "")
            )
        return done.stdout.decode("utf-8", "replace")


_engine_lock = threading.Lock()
_engine: Tesseract | OcrUnavailable | None = None


def _find_engine() -> Tesseract:
    binary = shutil.which("tesseract")
    if binary is None:
        raise OcrUnavailable(f"Tesseract is not installed (apt-get install {DEBIAN_PACKAGES})")
    try:
        listed = subprocess.run(
            [binary, "--list-langs"], capture_output=True, timeout=30, check=True
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError) as exc:
        raise OcrUnavailable(f"Tesseract does not start: {exc}") from exc
    installed = set(listed.split())
    languages = [language for language in LANGUAGES if language in installed]
    if "eng" not in languages:
        raise OcrUnavailable(f"Tesseract has no English model (apt-get install {DEBIAN_PACKAGES})")
    return Tesseract(binary, "+".join(languages))


def engine() -> Tesseract:
    """The engine, found once per process; a missing one is remembered, not re-probed."""
    global _engine
    with _engine_lock:
        if _engine is None:
            try:
                _engine = _find_engine()
            except OcrUnavailable as missing:
                _engine = missing
        found = _engine
    if isinstance(found, OcrUnavailable):
        raise OcrUnavailable(found.reason)
    return found


def _open(data: bytes, max_pixels: int) -> Image.Image:
    """The image with only its header read, refused before decoding if too large."""
    if not data:
        raise ImageUnreadable("the file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        # Pillow refuses past its own limit (~179 MP) while opening: its message has the size.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)) / 1e6:.0f} megapixels" if found else "too large"
        raise ImageUnreadable(
            f"the image is {size}; I read at most {max_pixels / 1e6:g} megapixels"
        ) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ImageUnreadable("not an image") from exc
    width, height = image.size
    if width * height > max_pixels:
        raise ImageUnreadable(
            f"the image is {width}×{height} pixels; I read at most {max_pixels / 1e6:g} megapixels"  # noqa: RUF001
        )
    return image


def _prepare(image: Image.Image) -> bytes:
    """Upright, grey, at a size Tesseract reads well, as PNG for its standard input."""
    try:
        long_side = max(image.size)
        if image.format == "JPEG" and long_side > LONG_SIDE_MAX:
            # A phone's 12 MP JPEG is decoded at 1/2 or 1/4 scale straight away: a third
            # of the time and a quarter of the memory of decoding it whole to shrink it.
            factor = LONG_SIDE_MAX / long_side
            image.draft("RGB", (int(image.width * factor), int(image.height * factor)))
        image.load()
        image = ImageOps.exif_transpose(image)
        if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
            # A screenshot with a transparent background: its text is drawn on white.
            rgba = image.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(white, rgba)
        grey = image.convert("L")
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageUnreadable("the image is damaged") from exc
    long_side = max(grey.size)
    scale = 1.0
    if long_side > LONG_SIDE_MAX:
        scale = LONG_SIDE_MAX / long_side
    elif long_side < LONG_SIDE_MIN:
        scale = min(LONG_SIDE_MIN / long_side, UPSCALE_MAX)
    if scale != 1.0:
        size = (max(1, round(grey.width * scale)), max(1, round(grey.height * scale)))
        grey = grey.resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    grey.save(out, "PNG", compress_level=1)
    return out.getvalue()


def _clean(raw: str) -> str:
    lines = (_CJK_GAP.sub("", " ".join(line.split())) for line in raw.splitlines())
    return "\n".join(line for line in lines if line)


def image_text(data: bytes, *, max_pixels: int = 12_000_000) -> str:
    """The text in a photo, lines joined with "\\n"; "" when it shows none.

    Raises ImageUnreadable for bytes that are not an image, an image larger than
    `max_pixels` (checked from the header, before any decoding) or a damaged one, and
    OcrUnavailable when Tesseract or its English model is not installed.
    """
    image = _open(data, max_pixels)
    reader = engine()
    return _clean(reader.read(_prepare(image)))
